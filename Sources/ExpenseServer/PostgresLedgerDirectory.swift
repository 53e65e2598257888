import ExpenseCore
import Foundation
import PostgreSQL
import Synchronization

/// Every ledger of one PostgreSQL database, for `expensed serve --postgres`: what ``LedgerDirectory`` is for a
/// data directory, except that any number of daemons may serve the same database at once (no directory
/// lock): each ``Ledger`` here has its own ``PostgresLedgerStore`` and connection, writes serialise on the
/// ledger's row in the database, and a ``PostgresChangeListener`` wakes this daemon's watchers when another
/// daemon commits.
public final class PostgresLedgerDirectory: LedgerProvider, Sendable {
    private struct Entry {
        var ledger: Ledger
        var token: [UInt8]?
    }

    private let conninfo: String
    private let schema: String?
    /// Where the database is, without its password (for logs).
    public let redactedDescription: String
    private let entries = Mutex<[String: Entry]>([:])
    private let decoyToken = Array(Token.generate().utf8)
    private let listener = Mutex<PostgresChangeListener?>(nil)

    /// Connects, creates or migrates the shared schema, and opens every ledger of the database.
    /// - Parameters:
    ///   - conninfo: a libpq keyword/value string or `postgresql://` URI (it may hold a password: it is never
    ///     logged or put in an error).
    ///   - schema: the schema to use instead of the server's default `search_path` (tests).
    ///   - listens: whether to start the ``PostgresChangeListener`` (`serve`; not `ledger add`).
    /// - Throws: ``LedgerError/storageUnavailable(_:)`` when the database cannot be reached, or a storage error.
    public init(conninfo: String, schema: String? = nil, listens: Bool = true) throws {
        self.conninfo = conninfo
        self.schema = schema
        let connection = try Self.connect(conninfo, schema: schema)
        redactedDescription = connection.redactedDescription
        try PostgresLedgerStore.prepareSchema(connection)
        for (name, _) in try PostgresLedgerStore.ledgers(connection) { _ = try open(name) }
        if listens {
            let listener = PostgresChangeListener(conninfo: conninfo, schema: schema) { [weak self] name in
                self?.openLedgers(named: name) ?? []
            }
            self.listener.withLock { $0 = listener }
        }
    }

    private static func connect(_ conninfo: String, schema: String?) throws -> PostgresConnection {
        do { return try PostgresConnection(conninfo, schema: schema) } catch { throw PostgresLedgerStore.storageError(error) }
    }

    /// The ledger `name` when `token` is its token (constant-time comparison, the same time for an unknown
    /// ledger); a ledger added by another process since this one started is opened here, once.
    public func authenticatedLedger(name: String, token: String) -> (any LedgerService)? {
        var entry = entries.withLock { $0[name] }
        if entry == nil, LedgerDirectory.isValid(name: name) { entry = try? open(name) }
        let matches = Token.matches(token, expected: entry?.token ?? decoyToken)
        guard matches, let entry, entry.token != nil else { return nil }
        return entry.ledger
    }

    /// Adds a ledger and returns its new token (shown once; the database keeps it, as the SQLite ledgers do).
    /// - Throws: ``LedgerError/invalidLedgerName(_:)``, ``LedgerError/ledgerExists(_:)``, or a storage error.
    public func addLedger(name: String, currency: Currency) throws -> String {
        let token = Token.generate()
        let connection = try Self.connect(conninfo, schema: schema)
        try PostgresLedgerStore.create(connection: connection, name: name, currency: currency, token: token)
        _ = try open(name)
        return token
    }

    /// Every ledger this daemon has open, sorted by name.
    public func ledgers() -> [(name: String, currency: Currency)] {
        entries.withLock { $0.values.map { ($0.ledger.name, $0.ledger.currency) } }.sorted { $0.name < $1.name }
    }

    /// Stops listening, commits what is queued in every ledger and closes them.
    public func close() async {
        listener.withLock { $0 }?.stop()
        let ledgers = entries.withLock { $0.values.map(\.ledger) }
        for ledger in ledgers { await ledger.close() }
    }

    /// The open ledger `name`, or every open ledger (`nil`).
    private func openLedgers(named name: String?) -> [Ledger] {
        entries.withLock { entries in
            if let name { return entries[name].map { [$0.ledger] } ?? [] }
            return entries.values.map(\.ledger)
        }
    }

    private func open(_ name: String) throws -> Entry {
        let connection = try Self.connect(conninfo, schema: schema)
        let store = try PostgresLedgerStore(connection: connection, name: name)
        store.announcesChanges = true
        let token = store.token.map { Array($0.utf8) }
        let entry = Entry(ledger: Ledger(name: store.name, currency: store.currency, store: store, identity: store.identity),
                          token: token)
        return entries.withLock { entries in
            if let existing = entries[name] { return existing }
            entries[name] = entry
            return entry
        }
    }
}
