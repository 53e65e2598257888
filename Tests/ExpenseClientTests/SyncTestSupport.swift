import LedgerTestSupport
import TestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import ExpenseTransport
import Foundation
import Testing


/// A real daemon (SQLite ledgers in a temporary directory, the network front on 127.0.0.1 port 0) in this process.
final class TestDaemon: @unchecked Sendable {
    // @unchecked Sendable: `server` and `ledgers` change only in `restart()`, which tests call while no client
    // is between calls, or from a fault hook that blocks the only client using it.
    let directory: String
    let token: String
    private(set) var port: UInt16 = 0
    private var ledgers: LedgerDirectory
    private var server: Server
    /// The daemon's `--max-line`.
    let maximumLineLength: Int

    init(maximumLineLength: Int = ServerConfiguration().maximumLineLength) throws {
        self.maximumLineLength = maximumLineLength
        directory = NSTemporaryDirectory() + "expense-sync-tests-" + UUID().uuidString
        ledgers = try LedgerDirectory(dataDirectory: directory, defaultCurrency: .usd)
        token = try String(contentsOfFile: directory + "/default.token", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        server = try Self.start(ledgers, port: 0, maximumLineLength: maximumLineLength)
        port = server.address.port
    }

    /// Starts a server on `port`. A restart on the port it had may find it taken for a moment: the kernel can give
    /// a just-freed port to an outgoing connection of a test running beside this one, so binding it is retried
    /// for up to 10 s while it is in use (port 0 never is).
    private static func start(_ ledgers: LedgerDirectory, port: UInt16, maximumLineLength: Int) throws -> Server {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            do {
                return try startOnce(ledgers, port: port, maximumLineLength: maximumLineLength)
            } catch TransportError.systemCall(_, let errno) where errno == EADDRINUSE && port != 0 && ContinuousClock.now < deadline {
                usleep(20_000)
            }
        }
    }

    private static func startOnce(_ ledgers: LedgerDirectory, port: UInt16, maximumLineLength: Int) throws -> Server {
        var configuration = ServerConfiguration()
        configuration.maximumLineLength = maximumLineLength
        configuration.listen = SocketAddress(host: "127.0.0.1", port: port)
        configuration.shutdownGrace = .seconds(2)
        let server = try Server(configuration: configuration, ledgers: ledgers, log: .none)
        server.start()
        return server
    }

    var remote: RemoteConfiguration { RemoteConfiguration(server: "127.0.0.1:\(port)", ledger: "default", token: token) }

    /// The ledger actor, for checks.
    var ledger: Ledger {
        get throws { try #require(ledgers.authenticate(ledger: "default", token: token)) }
    }

    /// Stops the daemon (in-flight requests finish, connections close, ledgers commit and close) and starts a new
    /// one on the same data and port, as a restart of `expensed` would.
    func restart() async throws {
        server.stop()
        await server.waitUntilStopped()
        await ledgers.close()
        ledgers = try LedgerDirectory(dataDirectory: directory, defaultCurrency: .usd)
        server = try Self.start(ledgers, port: port, maximumLineLength: maximumLineLength)
    }

    /// `expensed backup` of `default` into a new file beside the data directory (not in it: it would be a ledger
    /// there), removed by ``stop()``; returns its path.
    func backup() throws -> String {
        try FileManager.default.createDirectory(atPath: backupDirectory, withIntermediateDirectories: true)
        let file = backupDirectory + "/" + UUID().uuidString + ".sqlite"
        try ledgers.backup(ledger: "default", to: file)
        return file
    }

    /// Stop, `expensed restore FILE --ledger default`, start again on the same port (Protocol.md §5.7).
    func restore(from file: String) async throws {
        server.stop()
        await server.waitUntilStopped()
        await ledgers.close()
        _ = try LedgerDirectory.restore(dataDirectory: directory, ledger: "default", from: file)
        ledgers = try LedgerDirectory(dataDirectory: directory, defaultCurrency: .usd)
        server = try Self.start(ledgers, port: port, maximumLineLength: maximumLineLength)
    }

    func stop() async {
        server.stop()
        await server.waitUntilStopped()
        await ledgers.close()
        try? FileManager.default.removeItem(atPath: directory)
        try? FileManager.default.removeItem(atPath: backupDirectory)
    }

    private var backupDirectory: String { directory + "-backups" }

    /// Every record the daemon holds (tombstones included), by id.
    func records() async throws -> [UUID: Record] {
        let ledger = try self.ledger
        var since: Int64 = 0
        var all: [UUID: Record] = [:]
        while true {
            let page = try await ledger.pull(PullRequest(since: since, limit: 10_000))
            for record in page.changes { all[record.expense.id] = record }
            since = page.cursor
            if !page.more { return all }
        }
    }
}

/// One person's `expense` (an in-memory or SQLite store) syncing with a ``TestDaemon``.
final class TestClient: @unchecked Sendable {
    // @unchecked Sendable: used by one test at a time, each call awaited before the next (onOwnThread).
    let name: String
    let ledger: LocalLedger
    private let directory: TemporaryDirectory?
    /// What this client's engines run with: a test sets a fault point or an applied observer here.
    var dependencies = SyncEngine.Dependencies.live
    /// Attempts per sync when set (1: a cut connection fails the sync, as an interrupted `expense sync` would).
    var attempts: Int?
    /// Where to sync instead of the daemon itself (a proxy in front of it).
    var remote: RemoteConfiguration?

    init(_ name: String, persistent: Bool = false) throws {
        self.name = name
        if persistent {
            let directory = try TemporaryDirectory()
            self.directory = directory
            ledger = LocalLedger(store: try SQLiteExpenseStore(path: directory.path + "/cache.sqlite"))
        } else {
            directory = nil
            ledger = LocalLedger(store: InMemoryExpenseStore())
        }
    }

    /// - Parameter dependencies: instead of ``dependencies``, for one engine.
    func engine(_ daemon: TestDaemon, dependencies: SyncEngine.Dependencies? = nil) -> SyncEngine {
        var engine = SyncEngine(ledger: ledger, remote: remote ?? daemon.remote, dependencies: dependencies ?? self.dependencies)
        engine.configuration.clientName = name
        if let attempts { engine.configuration.attempts = attempts }
        engine.configuration.initialBackoff = .milliseconds(20)
        engine.configuration.timeout = .seconds(20)
        // As generous as `timeout`: the whole suite's in-process daemons share two loaded cores.
        engine.configuration.connectTimeout = .seconds(20)
        return engine
    }

    @discardableResult
    func sync(_ daemon: TestDaemon) async throws -> SyncEngine.Report {
        let engine = engine(daemon)
        return try await onOwnThread { [engine] in try engine.sync() }
    }

    @discardableResult
    func add(_ amount: Int64, _ category: String, note: String = "", date: String = "2026-03-01") throws -> Expense {
        try ledger.add(ExpenseDraft(amount: amount, currency: "USD", category: category, date: date, note: note))
    }

    func edit(_ id: UUID, _ changes: ExpenseDraft) throws {
        try ledger.edit(try ledger.find(id.uuidString), changes: changes)
    }

    func delete(_ id: UUID) throws { try ledger.delete(try ledger.find(id.uuidString)) }

    /// The live expenses, by id.
    func live() throws -> [UUID: Expense] {
        Dictionary(uniqueKeysWithValues: try ledger.list().map { ($0.id, $0) })
    }
}

extension SyncEngine: @unchecked Sendable {}
// @unchecked Sendable (tests only): an engine is handed to one thread and used there alone.

/// The live expenses of the daemon's records.
func liveExpenses(_ records: [UUID: Record]) -> [UUID: Expense] {
    records.filter { !$0.value.deleted }.mapValues(\.expense)
}
