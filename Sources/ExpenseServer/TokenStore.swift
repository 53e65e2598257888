import ExpenseProtocol

/// One token of a ledger as a store keeps it: never the token itself, only its SHA-256 (``Token/digest(_:)``).
package struct StoredToken: Hashable, Sendable {
    /// The token's name within its ledger (``LedgerDirectory/isValid(name:)``'s rule); `default` for the first.
    package var name: String
    package var role: TokenRole
    /// SHA-256 of the token's UTF-8 bytes (32 bytes).
    package var digest: [UInt8]
    /// When it was made, in Unix seconds.
    package var created: Int64
    /// When a `hello` last used it, in Unix seconds (written in batches: at most about a second late, and the
    /// last uses before a crash may be lost); `nil` when never.
    package var lastUsed: Int64?

    package init(name: String, role: TokenRole, digest: [UInt8], created: Int64, lastUsed: Int64? = nil) {
        self.name = name
        self.role = role
        self.digest = digest
        self.created = created
        self.lastUsed = lastUsed
    }
}

/// A use of a token to record: the name and digest (a token revoked and made again under the same name is
/// another token), and the time in Unix seconds.
package struct TokenUse: Hashable, Sendable {
    package var name: String
    package var digest: [UInt8]
    package var time: Int64
}

/// Where a ledger's tokens live: kept apart from ``LedgerStore`` so that every store implements the same small
/// set of methods (``SQLiteLedgerStore`` and ``InMemoryLedgerStore`` do; both pass the token contract tests).
///
/// Owned like the store it belongs to: one serial owner (the ``Ledger`` thread). Each method is its own
/// transaction; none runs inside ``LedgerStore/transaction(_:)``.
package protocol TokenStore: AnyObject {
    /// Every token of the ledger, sorted by name.
    func tokens() throws -> [StoredToken]
    /// Adds `token`.
    /// - Throws: ``LedgerError/tokenExists(_:)`` when the name is taken.
    func addToken(_ token: StoredToken) throws
    /// Removes the token named `name`; `false` when there is none.
    func removeToken(named name: String) throws -> Bool
    /// Writes when each token was last used, in one transaction; a use of a token that is gone (or was made
    /// again with another digest) is dropped, and a time never moves backwards.
    func recordTokenUses(_ uses: [TokenUse]) throws
    /// Whether the tokens may have changed since the previous call (the first call sets the baseline) through
    /// another writer of the same storage, such as `expensed token revoke` run beside the daemon. Cheap: the
    /// daemon asks before every request that reaches the ledger. `false` is a promise; `true` may be spurious.
    func tokensMayHaveChanged() throws -> Bool
}
