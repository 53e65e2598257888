import ExpenseProtocol

/// A `hello`'s proof: the ledger and the credential of the token that opened it.
public struct Authentication: Sendable {
    public var ledger: any LedgerService
    public var credential: TokenCredential

    public init(ledger: any LedgerService, credential: TokenCredential) {
        self.ledger = ledger
        self.credential = credential
    }
}

/// Finds the ledger a `hello` names, checking its token.
public protocol LedgerProvider: Sendable {
    /// Calls `completion` (on any thread) with the ledger named `name` and the credential of `token` when
    /// `token` is one of that ledger's tokens (its SHA-256 compared in constant time), else with `nil`; with a
    /// failure when the ledger's tokens cannot be read (its storage unavailable): not a wrong token.
    /// It is called on the network loop's thread, so it must return at once: work that may block (the first
    /// `hello` naming a ledger created after the daemon started opens that ledger) runs elsewhere.
    func authenticate(ledger name: String, token: String, completion: @escaping @Sendable (Result<Authentication?, LedgerError>) -> Void)
}

extension LedgerDirectory: LedgerProvider {}
