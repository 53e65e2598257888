import ExpenseProtocol
import Synchronization

/// What a successful `hello` proved: which of the ledger's tokens the connection holds, and its role.
///
/// The push path carries it to the ledger (``LedgerService/push(clientId:items:credential:completion:)``), so a
/// ledger knows who made each change by ``name`` (a change history records it) and refuses the pushes of a
/// token revoked meanwhile. When the token is revoked, ``revoke()`` runs the session's action once (it closes
/// the connection).
public final class TokenCredential: Sendable {
    /// The token's name (`default` for a ledger's first token).
    public let name: String
    public let role: TokenRole
    /// The token's SHA-256: a token revoked and made again under the same name is another token.
    let digest: [UInt8]
    private let revoked = Atomic<Bool>(false)
    private let onRevoke = Mutex<(@Sendable () -> Void)?>(nil)
    /// Forgets this credential in its ledger's ``LedgerAccess`` (the connection closed).
    private let release: @Sendable (TokenCredential) -> Void

    init(name: String, role: TokenRole, digest: [UInt8], release: @escaping @Sendable (TokenCredential) -> Void = { _ in }) {
        self.name = name
        self.role = role
        self.digest = digest
        self.release = release
    }

    /// A credential that belongs to no ledger's registry (test doubles of ``LedgerProvider``).
    public convenience init(name: String, role: TokenRole) {
        self.init(name: name, role: role, digest: [])
    }

    /// Whether the token was revoked since the `hello`.
    public var isRevoked: Bool { revoked.load(ordering: .acquiring) }

    /// Runs `action` once the token is revoked: at once when it already is.
    public func whenRevoked(_ action: @escaping @Sendable () -> Void) {
        let runNow = onRevoke.withLock { stored -> Bool in
            if isRevoked { return true }
            stored = action
            return false
        }
        if runNow { action() }
    }

    /// Marks the token revoked and runs the action given to ``whenRevoked(_:)`` (once).
    func revoke() {
        let action = onRevoke.withLock { stored -> (@Sendable () -> Void)? in
            revoked.store(true, ordering: .releasing)
            defer { stored = nil }
            return stored
        }
        action?()
    }

    /// The connection that held it closed: its ledger forgets it.
    public func released() {
        onRevoke.withLock { $0 = nil }
        release(self)
    }
}
