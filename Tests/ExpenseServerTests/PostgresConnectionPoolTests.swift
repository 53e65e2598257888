import ExpenseCore
import ExpenseProtocol
import Foundation
import LedgerTestSupport
import PostgreSQL
import Synchronization
import Testing
import TestSupport
@testable import ExpenseServer

/// The daemon's open ledgers share a bounded pool of PostgreSQL connections: a ledger holds one only while it has
/// work, so more ledgers than connections are served (once a daemon needed a backend per open ledger and could
/// not open the 101st under PostgreSQL's default `max_connections`).
@Suite(.offTheCooperativePool) struct PostgresConnectionPoolTests {
    static let enabled = PostgresTestCluster.enabled
    static let reason = Comment(rawValue: PostgresTestCluster.skipReason)

    /// The backends connected under `application` (the cluster is shared with the other tests running now).
    private static func backends(named application: String, admin: PostgresConnection) throws -> Int64 {
        try admin.query("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1",
                        [.text(application)]).first?.int64(0) ?? -1
    }

    @Test("twenty ledgers are served, concurrently, on two connections; every push is durable", .enabled(if: enabled, reason))
    func manyLedgersShareFewConnections() async throws {
        let schema = try PostgresTestSchema()
        // Its connections carry a name of their own, so they are counted apart from the other tests' backends.
        let application = "pool-test-" + UUIDText.lowercased(UUID()).prefix(8)
        let directory = try PostgresLedgerDirectory(conninfo: schema.conninfo + " application_name=" + application,
                                                    schema: schema.schema, listens: false, connections: 2)
        let names = (1...20).map { "household-\($0)" }
        var tokens: [String: String] = [:]
        for name in names { tokens[name] = try directory.addLedger(name: name, currency: .usd) }
        let admin = try schema.connect()
        let ledgers = try await withThrowingTaskGroup(of: (any LedgerService).self) { group in
            for name in names {
                let token = try #require(tokens[name])
                group.addTask {
                    let authentication = try await withCheckedThrowingContinuation { continuation in
                        directory.authenticate(ledger: name, token: token) { continuation.resume(with: $0) }
                    }
                    return try #require(authentication).ledger
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(ledgers.count == names.count)
        let results = try await withThrowingTaskGroup(of: PushResult.self) { group in
            for ledger in ledgers {
                group.addTask {
                    try await ledger.push(clientId: UUID(), items: (1...5).map { putItem(Int64($0), UUID(), base: 0, lunch()) })
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.flatMap(\.results).allSatisfy { if case .applied = $0.status { true } else { false } })
        #expect(directory.pool.connectionCount <= 2, "at most the pool's size, whatever the number of open ledgers")
        let backends = try Self.backends(named: application, admin: admin)
        #expect(backends >= 1 && backends <= 2, "the daemon's backends: \(backends)")
        // What was acknowledged is in the database, five records a ledger.
        let stored = try admin.query("SELECT count(*) FROM records").first?.int64(0)
        #expect(stored == Int64(names.count * 5))
        await directory.close()
        #expect(directory.pool.connectionCount == 0, "closing the directory closes the pool's connections")
    }

    @Test("a lease waits while every connection is leased and goes on when one is given back", .enabled(if: enabled, reason))
    func aLeaseWaitsForAConnectionGivenBack() throws {
        let schema = try PostgresTestSchema()
        let conninfo = schema.conninfo, name = schema.schema
        let pool = PostgresConnectionPool(size: 1) { try PostgresConnection(conninfo, schema: name) }
        let first = try pool.lease()
        let second = Mutex<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        Thread {
            if let connection = try? pool.lease() {
                second.withLock { $0 = true }
                pool.giveBack(connection)
            }
            done.signal()
        }.start()
        #expect(eventually { pool.waits == 1 })
        #expect(second.withLock { $0 } == false, "no second connection while the only one is leased")
        pool.giveBack(first)
        done.wait()
        #expect(second.withLock { $0 })
        #expect(pool.connectionCount == 1)
        pool.close()
        #expect(pool.connectionCount == 0)
        #expect(throws: LedgerError.self) { try pool.lease() }
    }

    /// A store that fails to open (an unknown ledger, PostgreSQL going away) gives its connection back: a failed
    /// initializer runs no deinit, and a connection kept by one was gone from the pool for good, until every
    /// ledger waited for a connection forever (found by `Scripts/crash-test --postgres --evictions` with restarts).
    @Test("a store that fails to open gives its connection back", .enabled(if: enabled, reason))
    func aFailedOpenGivesTheConnectionBack() throws {
        let schema = try PostgresTestSchema()
        let conninfo = schema.conninfo, name = schema.schema
        let pool = PostgresConnectionPool(size: 1) { try PostgresConnection(conninfo, schema: name) }
        #expect(throws: LedgerError.self) { try PostgresLedgerStore(pool: pool, name: "no-such-ledger") }
        let leased = DispatchSemaphore(value: 0)
        Thread {
            if let connection = try? pool.lease() { pool.giveBack(connection) }
            leased.signal()
        }.start()
        #expect(leased.wait(timeout: .now() + 20) == .success, "the pool's one connection was kept by a failed open")
        #expect(pool.waits == 0)
        pool.close()
    }
}
