/// The in-memory store's tokens: the same behaviour as the SQLite store's (the token contract tests), and no
/// other writer, so the tokens never change behind its owner's back.
extension InMemoryLedgerStore: TokenStore {
    package func tokens() throws -> [StoredToken] { storedTokens.values.sorted { $0.name < $1.name } }

    package func addToken(_ token: StoredToken) throws {
        guard storedTokens[token.name] == nil else { throw LedgerError.tokenExists(token.name) }
        storedTokens[token.name] = token
    }

    package func removeToken(named name: String) throws -> Bool { storedTokens.removeValue(forKey: name) != nil }

    package func recordTokenUses(_ uses: [TokenUse]) throws {
        for use in uses {
            guard var token = storedTokens[use.name], token.digest == use.digest, (token.lastUsed ?? .min) < use.time else { continue }
            token.lastUsed = use.time
            storedTokens[use.name] = token
        }
    }

    package func tokensMayHaveChanged() throws -> Bool { false }
}
