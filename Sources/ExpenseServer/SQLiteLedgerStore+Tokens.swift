import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import SQLite

/// The `tokens` table (migration 3): one row per named token, its SHA-256 only (``TokenStore``).
///
/// The functions taking a connection serve both the store (the daemon's own connection) and `expensed token …`,
/// which opens the ledger file beside a running daemon; SQLite's locking keeps the two apart, and the daemon
/// notices the other process's commit through `PRAGMA data_version` (``tokensMayHaveChanged()``).
extension SQLiteLedgerStore: TokenStore {
    /// The index of the migration that adds `tokens` (the first file version that has no token in `meta`).
    static let tokensMigration = 3
    /// The name the ledger's single token of older versions takes, and the first token of a new ledger.
    package static let firstTokenName = "default"

    package func tokens() throws -> [StoredToken] { try Self.tokens(connection: connection) }

    package func addToken(_ token: StoredToken) throws { try Self.addToken(token, connection: connection) }

    package func removeToken(named name: String) throws -> Bool { try Self.removeToken(named: name, connection: connection) }

    package func recordTokenUses(_ uses: [TokenUse]) throws {
        guard !uses.isEmpty else { return }
        try connection.transaction {
            for use in uses {
                try connection.cached("""
                    UPDATE tokens SET last_used = ?3 WHERE name = ?1 AND hash = ?2 AND (last_used IS NULL OR last_used < ?3)
                    """).run([.text(use.name), .blob(use.digest), .integer(use.time)])
            }
        }
    }

    package func tokensMayHaveChanged() throws -> Bool {
        let version = try connection.cached(literal: "PRAGMA data_version").first { $0.int64(0) } ?? 0
        defer { dataVersion = version }
        return version != dataVersion
    }

    // MARK: - On any connection to a ledger file

    static func tokens(connection: SQLiteConnection) throws -> [StoredToken] {
        try connection.cached("SELECT name, role, hash, created, last_used FROM tokens ORDER BY name").map { row in
            guard let role = TokenRole(rawValue: row.text(1)) else {
                throw LedgerError.storageFailed("token \(DisplayText.quoted(row.text(0))) has an unknown role in the database")
            }
            return StoredToken(name: row.text(0), role: role, digest: row.blob(2), created: row.int64(3),
                               lastUsed: row.isNull(4) ? nil : row.int64(4))
        }
    }

    static func addToken(_ token: StoredToken, connection: SQLiteConnection) throws {
        try connection.transaction { try insertToken(token, connection: connection) }
    }

    /// ``addToken(_:connection:)`` inside a transaction the caller holds.
    static func insertToken(_ token: StoredToken, connection: SQLiteConnection) throws {
        let taken = try connection.cached("SELECT 1 FROM tokens WHERE name = ?1").first([.text(token.name)]) { _ in true } ?? false
        if taken { throw LedgerError.tokenExists(token.name) }
        try connection.cached("INSERT INTO tokens (name, role, hash, created, last_used) VALUES (?1, ?2, ?3, ?4, ?5)").run([
            .text(token.name), .text(token.role.rawValue), .blob(token.digest), .integer(token.created),
            token.lastUsed.map { .integer($0) } ?? .null,
        ])
    }

    static func removeToken(named name: String, connection: SQLiteConnection) throws -> Bool {
        try connection.transaction {
            let existed = try connection.cached("SELECT 1 FROM tokens WHERE name = ?1").first([.text(name)]) { _ in true } ?? false
            try connection.cached("DELETE FROM tokens WHERE name = ?1").run([.text(name)])
            return existed
        }
    }

    /// Moves the single token of a file made before migration 3 (`meta.token`, kept in the clear) into
    /// `tokens` as the owner token `default`, as its SHA-256, and deletes it from `meta` with `secure_delete`
    /// on, so its bytes do not linger in a free page. One transaction; a file that has no `meta.token` is left
    /// alone, so it runs again after a crash half-way.
    static func convertLegacyToken(_ token: String, connection: SQLiteConnection) throws {
        try connection.execute("PRAGMA secure_delete = ON")
        defer { try? connection.execute("PRAGMA secure_delete = OFF") }
        try connection.transaction {
            try connection.cached("""
                INSERT INTO tokens (name, role, hash, created, last_used) VALUES (?1, ?2, ?3, ?4, NULL)
                ON CONFLICT (name) DO NOTHING
                """).run([.text(firstTokenName), .text(TokenRole.owner.rawValue), .blob(Token.digest(token)), .integer(now())])
            try connection.cached("DELETE FROM meta WHERE key = 'token'").run()
        }
    }

    /// The current time in whole Unix seconds.
    static func now() -> Int64 { Int64(Date().timeIntervalSince1970.rounded(.down)) }  // seconds, not money
}
