import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// `watch` across daemons: a push through daemon 1 wakes a watcher on daemon 2 (LISTEN/NOTIFY after the
/// commit), and a ledger added through one daemon is served by the other.
@Suite(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
struct PostgresWatchAcrossDaemonsTests {
    @Test func aPushThroughOneDaemonWakesAWatcherOnTheOther() async throws {
        let schema = try PostgresTestSchema()
        let one = try PostgresLedgerDirectory(conninfo: schema.conninfo, schema: schema.schema)
        let token = try one.addLedger(name: "shared", currency: .usd)
        let two = try PostgresLedgerDirectory(conninfo: schema.conninfo, schema: schema.schema)
        let writer = try #require(one.authenticatedLedger(name: "shared", token: token))
        let watched = try #require(two.authenticatedLedger(name: "shared", token: token))
        #expect(two.authenticatedLedger(name: "shared", token: "wrong") == nil)
        let (heads, continuation) = AsyncStream.makeStream(of: Int64.self)
        _ = await watched.watch { continuation.yield($0) }
        let started = ContinuousClock.now
        _ = try await writer.push(clientId: UUID(), items: [putItem(1, UUID(), base: 0, lunch())])
        let woke = await withTaskGroup(of: Int64?.self) { group in
            group.addTask { for await head in heads { return head }; return nil }
            group.addTask { try? await Task.sleep(for: .seconds(10)); return nil }  // a bound, not a synchronisation
            let first = await group.next() ?? nil
            group.cancelAll()
            continuation.finish()
            return first
        }
        #expect(woke == 1)
        #expect(ContinuousClock.now - started < .seconds(1))
        #expect(watched.headSnapshot == 1)
        // A ledger added through daemon two after daemon one started is served by daemon one.
        let euro = try #require(Currency(code: "EUR"))
        let later = try two.addLedger(name: "later", currency: euro)
        #expect(one.authenticatedLedger(name: "later", token: later)?.currency == euro)
        await one.close()
        await two.close()
    }
}
