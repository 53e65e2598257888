import ExpenseProtocol
import FoundationEssentials

/// A ledger's tokens: authentication on the ledger's thread against the store's tokens (re-read whenever
/// another process may have changed them), revocation reaching open connections, and batched last-use writes.
extension Ledger {
    /// Checks `token` on the ledger's thread, after taking in any token change committed so far, and calls
    /// `completion` there with the session's credential, or `nil` when the token is not one of this ledger's.
    /// The SHA-256 is compared with every token of the ledger in constant time. When the tokens cannot be
    /// read (PostgreSQL down: ``LedgerError/storageUnavailable(_:)``) nobody is admitted on what may be stale,
    /// and the failure is the storage's, never a wrong token: the client retries or moves on (Protocol.md §8)
    /// instead of giving up, and no login failure is counted against it.
    public nonisolated func authenticate(token: String, completion: @escaping @Sendable (Result<TokenCredential?, LedgerError>) -> Void) {
        perform { ledger in
            let digest = Token.digest(token)
            do {
                try ledger.takeInTokenChanges()
            } catch {
                completion(.failure(error as? LedgerError ?? LedgerError.storage(error)))
                return
            }
            completion(.success(ledger.access.admit(digest, time: SQLiteLedgerStore.now())))
        }
    }

    /// The ledger's tokens (names, roles, digests, creation, last use), with the uses not yet written included.
    package func tokens() throws -> [StoredToken] {
        writeTokenUses()
        return try tokenStore().tokens()
    }

    /// Makes a token named `name` with `role` and returns it: the only time it exists outside the caller
    /// (the store keeps its SHA-256).
    /// - Throws: ``LedgerError/invalidTokenName(_:)``, ``LedgerError/tokenExists(_:)``, or a storage error.
    package func addToken(name: String, role: TokenRole) throws -> String {
        guard LedgerDirectory.isValid(name: name) else { throw LedgerError.invalidTokenName(name) }
        let token = Token.generate()
        let store = try tokenStore()
        try store.addToken(StoredToken(name: name, role: role, digest: Token.digest(token), created: SQLiteLedgerStore.now()))
        access.replace(tokens: try store.tokens())
        return token
    }

    /// Removes the token named `name`; its open connections are closed at once.
    /// - Throws: ``LedgerError/unknownToken(_:)`` or a storage error.
    package func revokeToken(named name: String) throws {
        let store = try tokenStore()
        guard try store.removeToken(named: name) else { throw LedgerError.unknownToken(name) }
        access.replace(tokens: try store.tokens())
    }

    /// Re-reads the tokens when the store says another process may have changed them, revoking the
    /// credentials of tokens that are gone. Cheap when nothing changed (one `PRAGMA data_version`).
    /// - Returns: `false` when the tokens could not be read.
    @discardableResult
    func refreshTokens() -> Bool { (try? takeInTokenChanges()) != nil }

    /// Re-reads the tokens when another process may have changed them.
    /// - Throws: the store's error when they cannot be read.
    func takeInTokenChanges() throws {
        let store = try tokenStore()
        if try store.tokensMayHaveChanged() { access.replace(tokens: try store.tokens()) }
    }

    /// Writes the uses noted since the last write, in one transaction (at most once per poll, never once per
    /// request). A failure loses them: last use is advice for the person, not a durable record.
    func writeTokenUses() {
        let uses = access.takeUses()
        guard !uses.isEmpty, let store = try? tokenStore() else { return }
        try? store.recordTokenUses(uses)
    }

    /// What the daemon does once a poll interval for each open ledger: takes in token changes made by another
    /// process (closing the connections of revoked tokens even when they send nothing) and writes last uses.
    nonisolated func checkTokens(completion: @escaping @Sendable () -> Void = {}) {
        perform { ledger in
            if ledger.engine != nil {
                ledger.refreshTokens()
                ledger.writeTokenUses()
            }
            completion()
        }
    }

    /// The tokens of `store` as it opens, before the ledger's engine takes it (and the baseline for
    /// ``TokenStore/tokensMayHaveChanged()``); none for a store without tokens.
    static func initialTokens(_ store: any LedgerStore) -> [StoredToken] {
        guard let tokens = store as? any TokenStore else { return [] }
        _ = try? tokens.tokensMayHaveChanged()
        return (try? tokens.tokens()) ?? []
    }

    private func tokenStore() throws -> any TokenStore {
        guard let engine else { throw LedgerError.ledgerClosed }
        guard let store = engine.store as? any TokenStore else {
            throw LedgerError.storageFailed("this ledger's store keeps no tokens")
        }
        return store
    }
}
