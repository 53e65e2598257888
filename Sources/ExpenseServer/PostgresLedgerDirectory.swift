import Dispatch
import ExpenseCore
import FoundationEssentials
import PostgreSQL
import Synchronization

/// Every ledger of one PostgreSQL database, for `expensed serve --postgres`: what ``LedgerDirectory`` is for a
/// data directory, except that any number of daemons may serve the same database at once (no directory
/// lock): each ``Ledger`` here has its own ``PostgresLedgerStore`` and connection, writes serialise on the
/// ledger's row in the database, and a ``PostgresChangeListener`` wakes this daemon's watchers when another
/// daemon commits.
public final class PostgresLedgerDirectory: LedgerProvider, Sendable {
    private let conninfo: String
    private let schema: String?
    /// Where the database is, without its password (for logs).
    public let redactedDescription: String
    /// The connections the open ledgers share (``PostgresConnectionPool``): a ledger holds one only while it has work.
    let pool: PostgresConnectionPool
    /// The ledgers open now: each opened when first asked for, closed again when unused (``closeUnusedLedgers(idle:maximum:)``).
    let opened = OpenLedgers()
    /// Compared against when the ledger is unknown, so that case takes the time of a wrong token.
    private let decoyDigest = Token.digest(Token.generate())
    private let listener = Mutex<PostgresChangeListener?>(nil)
    /// Whether the token poll runs (``watchTokens(every:)``); cleared by ``close()``.
    private let tokenWatch = TokenWatch()
    /// The ledgers of a compaction round that were not open when it began.
    private let closedCompactions = ClosedLedgerCompactions()

    /// Connects and creates or migrates the shared schema. No ledger is opened: each is opened (with a connection
    /// of its own) when a request first names it, so the daemon starts in the same time and with the same
    /// backends whatever the number of ledgers in the database.
    /// - Parameters:
    ///   - conninfo: a libpq keyword/value string or `postgresql://` URI (it may hold a password: it is never
    ///     logged or put in an error).
    ///   - schema: the schema to use instead of the server's default `search_path` (tests).
    ///   - listens: whether to start the ``PostgresChangeListener`` (`serve`; not `ledger add`).
    ///   - connections: the most PostgreSQL connections the open ledgers hold at once (`serve --pg-connections`).
    /// - Throws: ``LedgerError/storageUnavailable(_:)`` when the database cannot be reached, or a storage error.
    public init(conninfo: String, schema: String? = nil, listens: Bool = true, connections: Int = 15) throws {
        self.conninfo = conninfo
        self.schema = schema
        pool = PostgresConnectionPool(size: connections) { try Self.connect(conninfo, schema: schema) }
        let connection = try Self.connect(conninfo, schema: schema)
        redactedDescription = connection.redactedDescription
        try PostgresLedgerStore.prepareSchema(connection)
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

    /// Checks `token` against the tokens of ledger `name` on that ledger's thread, after taking in any token
    /// change committed by any daemon or `expensed token … --postgres` (its `tokens_generation`), and calls
    /// `completion` with the ledger and the token's credential, or `nil`. A ledger added by another process
    /// since this one started is opened here, once, on a Dispatch worker (never on the loop's thread); an
    /// unknown ledger costs the same hash and comparison as a wrong token.
    public func authenticate(ledger name: String, token: String, completion: @escaping @Sendable (Result<Authentication?, LedgerError>) -> Void) {
        // Pinned while the token is checked, so it is not closed for being unused before the connection holds it.
        if let ledger = opened[name], opened.pin(name, ledger) {
            authenticate(ledger, token: token, name: name, completion: completion)
            return
        }
        DispatchQueue.global().async {
            let ledger: Ledger
            do {
                guard LedgerDirectory.isValid(name: name) else { throw LedgerError.unknownLedger(name) }
                ledger = try self.open(name, pinned: true)
            } catch LedgerError.storageUnavailable(let detail) {
                completion(.failure(.storageUnavailable(detail)))  // not known to be unknown: the database is down
                return
            } catch {
                _ = Token.sameDigest(Token.digest(token), self.decoyDigest)
                completion(.success(nil))
                return
            }
            self.authenticate(ledger, token: token, name: name, completion: completion)
        }
    }

    private func authenticate(_ ledger: Ledger, token: String, name: String,
                              completion: @escaping @Sendable (Result<Authentication?, LedgerError>) -> Void) {
        ledger.authenticate(token: token) { credential in
            self.opened.unpin(name)
            completion(credential.map { $0.map { Authentication(ledger: ledger, credential: $0) } })
        }
    }

    /// The login throttle's count in this database, shared with every daemon serving it (Protocol.md section 4),
    /// on a connection of its own.
    func loginThrottle(freeFailures: Int, interval: Duration, log: ServerLog) -> PostgresLoginThrottle {
        PostgresLoginThrottle(pool: pool, freeFailures: freeFailures, interval: interval, log: log)
    }

    /// The ledger `name` when `token` is one of its tokens as last read (no credential registered: tests); a
    /// ledger added by another process since this one started is opened here, once.
    public func authenticatedLedger(name: String, token: String) -> Ledger? {
        var ledger = opened[name]
        if ledger == nil, LedgerDirectory.isValid(name: name) { ledger = try? open(name) }
        guard let ledger else {
            _ = Token.sameDigest(Token.digest(token), decoyDigest)
            return nil
        }
        return ledger.access.match(Token.digest(token)) == nil ? nil : ledger
    }

    /// Every `interval`, has each open ledger take in token changes made through any daemon (closing the
    /// connections of revoked tokens even when they send nothing) and write its tokens' last uses, on a
    /// Dispatch timer until ``close()``.
    public func watchTokens(every interval: Duration) {
        tokenWatch.start(every: interval) { [weak self] in self?.openLedgersForTokenCheck() ?? [] }
    }

    private func openLedgersForTokenCheck() -> [Ledger] { openLedgers(named: nil) }

    /// One round of ``watchTokens(every:)`` now; `completion` runs once every open ledger has done it.
    package func checkTokens(completion: @escaping @Sendable () -> Void = {}) {
        TokenWatch.check(openLedgersForTokenCheck(), completion: completion)
    }

    /// Compacts every ledger of the database (`expensed serve --postgres --compact-after`): an open one on its
    /// own thread, between its group commits; the others one after another on a Dispatch worker, on one
    /// connection each, as `expensed compact --postgres` does, unless a request opens one first
    /// (``ClosedLedgerCompactions``). `done` gets one line per ledger for the log.
    public func compactLedgers(before cutoff: Int64, keepDays: Int, done: @escaping @Sendable (String) -> Void) {
        let open = openLedgers(named: nil)
        LedgerDirectory.compact(open, before: cutoff, keepDays: keepDays, done: done)
        let openNames = Set(open.map(\.name)), conninfo = conninfo, schema = schema
        let closed: [String]
        do {
            let connection = try PostgresLedgerStore.storage { try PostgresConnection(conninfo, schema: schema) }
            closed = try PostgresLedgerStore.ledgers(connection).map(\.name).filter { !openNames.contains($0) }
        } catch {
            done("compaction could not list the ledgers: \(error)")
            return
        }
        closedCompactions.begin(closed, .init(cutoff: cutoff, keepDays: keepDays, done: done)) { name, cutoff in
            try Self.compact(conninfo: conninfo, schema: schema, ledger: name, before: cutoff)
        }
    }

    /// Adds a ledger and returns its new token, the owner token `default` (shown once; the database keeps its
    /// SHA-256 only, as the SQLite ledgers do).
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
        opened.all.map { ($0.name, $0.currency) }.sorted { $0.name < $1.name }
    }

    /// Stops listening, commits what is queued in every ledger and closes them.
    public func close() async {
        listener.withLock { $0 }?.stop()
        tokenWatch.stop()
        await opened.close()
        pool.close()
    }

    /// Closes ledgers nobody uses, as ``LedgerDirectory/closeUnusedLedgers(idle:maximum:)`` does; a closed
    /// ledger also gives back its PostgreSQL connection.
    public func closeUnusedLedgers(idle: Duration?, maximum: Int?, log: ServerLog = .none) {
        opened.log(to: log)
        opened.limits = OpenLedgers.Limits(idle: idle, maximum: maximum)
        if let idle { opened.closeUnused(every: OpenLedgers.sweepInterval(idle: idle)) }
    }

    /// The open ledger `name`, or every open ledger (`nil`).
    private func openLedgers(named name: String?) -> [Ledger] {
        if let name { return opened[name].map { [$0] } ?? [] }
        return opened.all
    }

    private func open(_ name: String, pinned: Bool = false) throws -> Ledger {
        opened.waitUntilClosed(name)  // closed for being unused a moment ago: its last commit is in first
        let store = try PostgresLedgerStore(pool: pool, name: name)
        store.announcesChanges = true
        let ledger = Ledger(name: store.name, currency: store.currency, store: store, identity: store.identity)
        // A compaction round that has not reached this ledger yet: queued first on its thread, before any request.
        if let round = closedCompactions.opened(name) {
            LedgerDirectory.compact([ledger], before: round.cutoff, keepDays: round.keepDays, done: round.done)
        }
        return opened.insert(ledger, as: name, pinned: pinned)
    }
}
