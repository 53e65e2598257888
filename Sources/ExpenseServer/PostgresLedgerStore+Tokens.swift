import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import PostgreSQL

/// The `tokens` table (migration 1): one row per named token of each ledger, its SHA-256 only (``TokenStore``).
///
/// Revocation across daemons: every change of a ledger's tokens moves its row's `tokens_generation` in the
/// same transaction, and ``tokensMayHaveChanged()`` compares that column with the value last read (one
/// indexed read; PostgreSQL has no `data_version`). Every daemon on the database asks before each request that
/// reaches the ledger and once a poll interval (``PostgresLedgerDirectory/watchTokens(every:)``), so a token
/// revoked through any daemon or `expensed token revoke --postgres` is refused everywhere at once and its idle
/// connections are closed within the interval.
///
/// The static forms take a connection of their own (`expensed token … --postgres`, `migrate`).
extension PostgresLedgerStore: TokenStore {
    package func tokens() throws -> [StoredToken] {
        try ensureConnected()
        return try Self.storage { try Self.tokens(ledger: name, connection: connection) }
    }

    package func addToken(_ token: StoredToken) throws {
        try ensureConnected()
        try Self.storage { try connection.transaction { try Self.insertToken(token, ledger: name, connection: connection) } }
    }

    package func removeToken(named tokenName: String) throws -> Bool {
        try ensureConnected()
        return try Self.storage { try Self.removeToken(named: tokenName, ledger: name, connection: connection) }
    }

    package func recordTokenUses(_ uses: [TokenUse]) throws {
        guard !uses.isEmpty else { return }
        try ensureConnected()
        try Self.storage {
            _ = try connection.query("""
                UPDATE tokens t SET last_used = u.time
                FROM unnest($2::text[], $3::text[], $4::bigint[]) AS u(name, hash, time)
                WHERE t.ledger = $1 AND t.name = u.name AND t.hash = decode(u.hash, 'hex')
                  AND (t.last_used IS NULL OR t.last_used < u.time)
                """, [.text(name), .array(uses.map { .text($0.name) }), .array(uses.map { .text(Token.hex($0.digest)) }),
                      .array(uses.map { .integer($0.time) })])
        }
    }

    package func tokensMayHaveChanged() throws -> Bool {
        try ensureConnected()
        let stored = try Self.storage {
            try connection.query("SELECT tokens_generation FROM ledgers WHERE name = $1", [.text(name)]).first?.int64(0)
        }
        guard let stored else { throw LedgerError.unknownLedger(name) }
        defer { tokensGeneration = stored }
        return stored != tokensGeneration
    }

    // MARK: - On any connection to the database

    /// Every token of `ledger`, sorted by name.
    static func tokens(ledger: String, connection: PostgresConnection) throws -> [StoredToken] {
        try connection.query("SELECT name, role, encode(hash, 'hex'), created, last_used FROM tokens WHERE ledger = $1",
                             [.text(ledger)]).all.map { row in
            guard let role = TokenRole(rawValue: row.text(1)), let digest = row.hexBytes(2) else {
                throw LedgerError.storageFailed("token \(DisplayText.quoted(row.text(0))) has an unknown role or hash in the database")
            }
            return StoredToken(name: row.text(0), role: role, digest: digest, created: row.int64(3), lastUsed: row.optionalInt64(4))
        }.sorted { $0.name < $1.name }
    }

    /// Adds `token` to `ledger` inside a transaction the caller holds, moving the ledger's tokens generation.
    /// - Throws: ``LedgerError/tokenExists(_:)``, ``LedgerError/unknownLedger(_:)``.
    static func insertToken(_ token: StoredToken, ledger: String, connection: PostgresConnection) throws {
        try bumpTokensGeneration(ledger: ledger, connection: connection)
        let inserted = try connection.query("""
            INSERT INTO tokens (ledger, name, role, hash, created, last_used) VALUES ($1, $2, $3, decode($4, 'hex'), $5, $6)
            ON CONFLICT (ledger, name) DO NOTHING
            """, [.text(ledger), .text(token.name), .text(token.role.rawValue), .text(Token.hex(token.digest)),
                  .integer(token.created), token.lastUsed.map { .integer($0) } ?? .null]).affectedRows
        if inserted == 0 { throw LedgerError.tokenExists(token.name) }
    }

    /// Removes the token `name` of `ledger` in a transaction of its own; `false` when there is none.
    static func removeToken(named name: String, ledger: String, connection: PostgresConnection) throws -> Bool {
        try connection.transaction {
            try bumpTokensGeneration(ledger: ledger, connection: connection)
            return try connection.query("DELETE FROM tokens WHERE ledger = $1 AND name = $2",
                                        [.text(ledger), .text(name)]).affectedRows > 0
        }
    }

    private static func bumpTokensGeneration(ledger: String, connection: PostgresConnection) throws {
        let updated = try connection.query("UPDATE ledgers SET tokens_generation = tokens_generation + 1 WHERE name = $1",
                                           [.text(ledger)]).affectedRows
        if updated == 0 { throw LedgerError.unknownLedger(ledger) }
    }
}
