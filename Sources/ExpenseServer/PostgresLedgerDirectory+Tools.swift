import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import PostgreSQL

/// `expensed ledger add|list --postgres`, `token add|list|revoke --postgres` and `compact --postgres`: the
/// ledgers a command names, on one connection of its own beside any number of serving daemons (never a
/// connection per ledger: adding the thousandth ledger takes one backend, as the first did).
///
/// A token change moves the ledger row's `tokens_generation` in its transaction, which every daemon reads
/// before each request that reaches the ledger and once a poll interval: a revoked token is refused by every
/// daemon from the moment the command returns, and its open connections are closed within a second.
/// Compaction takes the ledger's row lock for each of its short steps, so the daemons' commits wait for a
/// step (milliseconds), they do not fail.
extension PostgresLedgerDirectory {
    /// Adds ledger `name` and returns its owner token `default` (the database keeps its SHA-256 only). A daemon
    /// opens it when first asked.
    /// - Throws: ``LedgerError/invalidLedgerName(_:)``, ``LedgerError/ledgerExists(_:)``, or a storage error.
    package static func addLedger(conninfo: String, schema: String? = nil, name: String, currency: Currency) throws -> String {
        let token = Token.generate()
        try PostgresLedgerStore.storage {
            let connection = try PostgresConnection(conninfo, schema: schema)
            try connection.migrate(PostgresLedgerStore.migrations)
            try PostgresLedgerStore.create(connection: connection, name: name, currency: currency, token: token)
        }
        return token
    }

    /// Every ledger of the database, sorted by name, with its currency.
    /// - Throws: a storage error.
    package static func ledgers(conninfo: String, schema: String? = nil) throws -> [(name: String, currency: Currency)] {
        try PostgresLedgerStore.storage {
            let connection = try PostgresConnection(conninfo, schema: schema)
            try connection.migrate(PostgresLedgerStore.migrations)
            return try PostgresLedgerStore.ledgers(connection)
        }
    }

    /// Makes a token for `ledger` and returns it: the only copy (the database keeps its SHA-256).
    /// - Throws: ``LedgerError/unknownLedger(_:)``, ``LedgerError/invalidTokenName(_:)``,
    ///   ``LedgerError/tokenExists(_:)``, or a storage error.
    package static func addToken(conninfo: String, schema: String? = nil, ledger: String, name: String, role: TokenRole) throws -> String {
        guard LedgerDirectory.isValid(name: name) else { throw LedgerError.invalidTokenName(name) }
        let token = Token.generate()
        try withLedger(conninfo, schema, ledger) { connection in
            try connection.transaction {
                try PostgresLedgerStore.insertToken(StoredToken(name: name, role: role, digest: Token.digest(token),
                                                                created: HistoryAuthor.now()), ledger: ledger, connection: connection)
            }
        }
        return token
    }

    /// The tokens of `ledger`, sorted by name (last uses as the daemons last wrote them).
    /// - Throws: ``LedgerError/unknownLedger(_:)`` or a storage error.
    package static func tokens(conninfo: String, schema: String? = nil, ledger: String) throws -> [StoredToken] {
        try withLedger(conninfo, schema, ledger) { try PostgresLedgerStore.tokens(ledger: ledger, connection: $0) }
    }

    /// Removes the token `name` of `ledger`.
    /// - Throws: ``LedgerError/unknownLedger(_:)``, ``LedgerError/unknownToken(_:)``, or a storage error.
    package static func revokeToken(conninfo: String, schema: String? = nil, ledger: String, name: String) throws {
        let removed = try withLedger(conninfo, schema, ledger) {
            try PostgresLedgerStore.removeToken(named: name, ledger: ledger, connection: $0)
        }
        guard removed else { throw LedgerError.unknownToken(name) }
    }

    /// Compacts `ledger` (``PostgresLedgerStore/compact(before:)``), whether or not daemons serve it.
    /// - Throws: ``LedgerError/unknownLedger(_:)`` or a storage error.
    package static func compact(conninfo: String, schema: String? = nil, ledger: String, keepDays: Int) throws -> (horizon: Int64, tombstones: Int, entries: Int) {
        try compact(conninfo: conninfo, schema: schema, ledger: ledger, before: LedgerDirectory.cutoff(keepDays: keepDays))
    }

    static func compact(conninfo: String, schema: String?, ledger: String, before cutoff: Int64) throws -> (horizon: Int64, tombstones: Int, entries: Int) {
        let report = try withLedger(conninfo, schema, ledger) { connection in
            try PostgresLedgerStore(connection: connection, name: ledger).compact(before: cutoff)
        }
        return (report.horizon, report.tombstones, report.entries)
    }

    /// Runs `body` on a new connection to the database (`schema`: tests; its tables brought forward first) once `ledger` is
    /// known to exist there.
    private static func withLedger<T>(_ conninfo: String, _ schema: String?, _ ledger: String, _ body: (PostgresConnection) throws -> T) throws -> T {
        try PostgresLedgerStore.storage {
            let connection = try PostgresConnection(conninfo, schema: schema)
            try connection.migrate(PostgresLedgerStore.migrations)
            guard LedgerDirectory.isValid(name: ledger),
                  try connection.query("SELECT 1 FROM ledgers WHERE name = $1", [.text(ledger)]).first != nil else {
                throw LedgerError.unknownLedger(ledger)
            }
            return try body(connection)
        }
    }
}
