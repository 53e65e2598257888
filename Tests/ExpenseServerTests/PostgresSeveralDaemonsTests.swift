import LedgerTestSupport
import ExpenseCore
import ExpenseProtocol
import Foundation
import PostgreSQL
import Testing
import TestSupport
@testable import ExpenseServer

/// Several daemons on one database (docs/modules.md, "Who owns a ledger"): each daemon's ``Ledger`` has its
/// own store and connection; the row lock on the ledger row serialises their writes, and nothing cached in one
/// daemon is trusted once another has written.
@Suite(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
struct PostgresSeveralDaemonsTests {
    /// Two ledgers (daemons) over one new schema, made on a thread of their own (connecting blocks).
    private static func twoDaemons() async throws -> (Ledger, Ledger, drop: @Sendable () -> Void) {
        try await onOwnThread {
            let schema = try PostgresTestSchema()
            schema.dropsWhenGone = false
            let (conninfo, name) = (schema.conninfo, schema.schema)
            return (Ledger(name: "test", currency: .usd, store: try PostgresTestSchema.store(conninfo: conninfo, schema: name)),
                    Ledger(name: "test", currency: .usd, store: try PostgresTestSchema.store(conninfo: conninfo, schema: name)),
                    { PostgresTestSchema.drop(name, conninfo: conninfo) })
        }
    }

    @Test func concurrentPushesThroughTwoDaemonsGiveGapFreeSeqsAndWhatOneDaemonWould() async throws {
        let (first, second, drop) = try await Self.twoDaemons()
        defer { drop() }
        let clients = (0..<6).map { _ in UUID() }
        let rounds = 20
        // Each client pushes its rounds alternately through one daemon and the other, concurrently with the rest.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, clientId) in clients.enumerated() {
                group.addTask {
                    for round in 0..<rounds {
                        let ledger = (index + round) % 2 == 0 ? first : second
                        let items = (1...5).map { offset in
                            putItem(Int64(round * 5 + offset), UUID(), base: 0, lunch(Int64(100 + index)))
                        }
                        let result = try await ledger.push(clientId: clientId, items: items)
                        #expect(result.results.allSatisfy { if case .applied = $0.status { true } else { false } })
                    }
                }
            }
            try await group.waitForAll()
        }
        let total = clients.count * rounds * 5
        let pulled = try await first.pull(PullRequest(since: 0, limit: 10_000))
        #expect(pulled.changes.map(\.seq) == (1...Int64(total)).map { $0 })
        #expect(try await second.hello(clientId: clients[0]) == (Int64(total), Int64(rounds * 5)) as (Int64, Int64))
        let summary = try await second.summary(SummaryQuery()).summary
        let expected = clients.indices.reduce(Int64(0)) { $0 + Int64(100 + $1) * Int64(rounds * 5) }
        #expect(summary.totals.map(\.amount) == [expected] && summary.totals.map(\.count) == [Int64(total)])
        // A replay through the other daemon is a duplicate with the outcome the first one kept.
        let replay = try await second.push(clientId: clients[1], items: [putItem(1, UUID(), base: 0, lunch())])
        guard case .duplicate(.applied?) = replay.results[0].status else {
            Issue.record("\(replay.results[0].status)")
            return
        }
        await first.close()
        await second.close()
    }

    @Test func aDaemonsCachedTotalsAreCheckedAgainstTheOtherDaemonsWrites() async throws {
        try await onOwnThread { try Self.cachedTotalsAreChecked() }
    }

    private static func cachedTotalsAreChecked() throws {
        let schema = try PostgresTestSchema()
        let one = LedgerEngine(store: try schema.store(), currency: .usd)
        let two = LedgerEngine(store: try schema.store(), currency: .usd)
        let maximum: Int64 = 9_007_199_254_740_991
        let ann = UUID(), bob = UUID()
        _ = try one.push(clientId: ann, items: (1...1000).map { putItem(Int64($0), UUID(), base: 0, lunch(maximum)) })
        _ = try two.push(clientId: bob, items: (1...24).map { putItem(Int64($0), UUID(), base: 0, lunch(maximum)) })
        // 1,024 maximum amounts are stored; daemon one's own totals saw only its 1,000.
        let result = try one.push(clientId: ann, items: [putItem(1001, UUID(), base: 0, lunch(maximum))])
        #expect(result.results[0].status.reason == "amount_overflow")
        // Its head was another daemon's too: the next seq follows bob's (1,024 × the maximum + 1 still fits).
        let next = try one.push(clientId: ann, items: [putItem(1002, UUID(), base: 0, lunch(1))])
        #expect(next.results[0].status == .applied(version: 1, seq: 1025))
    }

    @Test func aLostConnectionAnswersStorageUnavailableAndTheNextTransactionReconnects() async throws {
        try await onOwnThread {
            let schema = try PostgresTestSchema()
            let store = try schema.store()
            let engine = LedgerEngine(store: store, currency: .usd)
            let clientId = UUID()
            _ = try engine.push(clientId: clientId, items: [putItem(1, UUID(), base: 0, lunch())])
            let pid = try #require(try store.connection.query("SELECT pg_backend_pid()").first?.int64(0))
            _ = try schema.connect().query("SELECT pg_terminate_backend($1::integer)", [.integer(pid)])
            #expect(throws: LedgerError.storageUnavailable("")) {
                do {
                    _ = try engine.push(clientId: clientId, items: [putItem(2, UUID(), base: 0, lunch())])
                } catch LedgerError.storageUnavailable {
                    throw LedgerError.storageUnavailable("")
                }
            }
            #expect(LedgerError.storageUnavailable("x").rpcError.code == -32007)
            // Not a failed store: the next transaction reconnects, and mutation 2 was never consumed.
            let retry = try engine.push(clientId: clientId, items: [putItem(2, UUID(), base: 0, lunch())])
            #expect(retry.results[0].status == .applied(version: 1, seq: 2))
            #expect(try allRecords(engine).map(\.seq) == [1, 2])
        }
    }

    @Test func aLedgerWhoseConnectionWasLostReconnectsBeforeItsNextPushAndLosesNothing() async throws {
        let (ledger, pid, conninfo, name) = try await onOwnThread { () throws -> (Ledger, Int64, String, String) in
            let schema = try PostgresTestSchema()
            schema.dropsWhenGone = false
            let store = try PostgresTestSchema.store(conninfo: schema.conninfo, schema: schema.schema)
            let pid = try #require(try store.connection.query("SELECT pg_backend_pid()").first?.int64(0))
            return (Ledger(name: "test", currency: .usd, store: store), pid, schema.conninfo, schema.schema)
        }
        defer { PostgresTestSchema.drop(name, conninfo: conninfo) }
        let clientId = UUID()
        _ = try await ledger.push(clientId: clientId, items: [putItem(1, UUID(), base: 0, lunch())])
        try await onOwnThread {
            _ = try PostgresConnection(conninfo).query("SELECT pg_terminate_backend($1::integer)", [.integer(pid)])
        }
        // The token check before the batch meets the lost connection first; the transaction reconnects.
        let retry = try await ledger.push(clientId: clientId, items: [putItem(2, UUID(), base: 0, lunch())])
        #expect(retry.results[0].status == .applied(version: 1, seq: 2))
        #expect(try await ledger.pull(PullRequest(since: 0)).changes.map(\.seq) == [1, 2])
        await ledger.close()
    }
}
