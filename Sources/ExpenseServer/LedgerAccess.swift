import ExpenseProtocol
import FoundationEssentials
import Synchronization

/// One ledger's tokens as the daemon last read them from its store, the credentials handed out for them, and
/// the uses not yet written.
///
/// Read on the ledger's thread, which refreshes it whenever the store says the tokens may have changed
/// (``Ledger/refreshTokens()``); behind a `Mutex` because sessions release their credentials from the loop
/// thread.
final class LedgerAccess: Sendable {
    private struct State {
        var tokens: [StoredToken] = []
        /// Live credentials by identity (one per authenticated connection).
        var credentials: [ObjectIdentifier: TokenCredential] = [:]
        /// Last use per token name since the last write (``takeUses()``).
        var uses: [String: TokenUse] = [:]
    }

    private let state = Mutex(State())
    /// Compared against when the ledger has no token at all, so that case takes the time of a wrong token.
    private let decoy = Token.digest(Token.generate())

    init(tokens: [StoredToken]) {
        state.withLock { $0.tokens = tokens }
    }

    /// The tokens as last read.
    var tokens: [StoredToken] { state.withLock { $0.tokens } }

    /// The token whose digest is `digest`, compared with every token of the ledger in constant time (no early
    /// exit: the time depends on how many tokens there are, never on which one matches or where they differ).
    func match(_ digest: [UInt8]) -> StoredToken? {
        let tokens = tokens
        var found: StoredToken?
        for token in tokens where Token.sameDigest(digest, token.digest) { found = token }
        if tokens.isEmpty { _ = Token.sameDigest(digest, decoy) }
        return found
    }

    /// A credential for the token whose digest is `digest`, registered so that a revocation reaches it, with its
    /// use noted at `time`; `nil` when no token matches.
    func admit(_ digest: [UInt8], time: Int64) -> TokenCredential? {
        guard let token = match(digest) else { return nil }
        let credential = TokenCredential(name: token.name, role: token.role, digest: token.digest) { [weak self] credential in
            self?.state.withLock { _ = $0.credentials.removeValue(forKey: ObjectIdentifier(credential)) }
        }
        state.withLock { state in
            state.credentials[ObjectIdentifier(credential)] = credential
            state.uses[token.name] = TokenUse(name: token.name, digest: token.digest, time: time)
        }
        return credential
    }

    /// Takes the tokens read anew from the store and revokes every credential whose token is no longer among
    /// them (by name and digest).
    /// - Returns: the credentials revoked.
    @discardableResult
    func replace(tokens: [StoredToken]) -> [TokenCredential] {
        let revoked = state.withLock { state -> [TokenCredential] in
            state.tokens = tokens
            let alive = Set(tokens.map { Key(name: $0.name, digest: $0.digest) })
            let gone = state.credentials.values.filter { !alive.contains(Key(name: $0.name, digest: $0.digest)) }
            for credential in gone { state.credentials[ObjectIdentifier(credential)] = nil }
            return gone
        }
        for credential in revoked { credential.revoke() }
        return revoked
    }

    /// The uses noted since the last call, to write.
    func takeUses() -> [TokenUse] {
        state.withLock { state in
            defer { state.uses.removeAll() }
            return Array(state.uses.values)
        }
    }

    /// How many credentials are live (tests).
    var credentialCount: Int { state.withLock { $0.credentials.count } }

    private struct Key: Hashable {
        var name: String
        var digest: [UInt8]
    }
}
