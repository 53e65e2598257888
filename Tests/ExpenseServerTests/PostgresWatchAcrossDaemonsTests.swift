import LedgerTestSupport
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
        // Connecting blocks: on a thread of its own, never on the cooperative pool the other tests need.
        let (conninfo, name) = try await onOwnThread { () throws -> (String, String) in
            let schema = try PostgresTestSchema()
            schema.dropsWhenGone = false
            return (schema.conninfo, schema.schema)
        }
        defer { PostgresTestSchema.drop(name, conninfo: conninfo) }
        let (one, two, token) = try await onOwnThread { () throws -> (PostgresLedgerDirectory, PostgresLedgerDirectory, String) in
            let one = try PostgresLedgerDirectory(conninfo: conninfo, schema: name)
            let token = try one.addLedger(name: "shared", currency: .usd)
            return (one, try PostgresLedgerDirectory(conninfo: conninfo, schema: name), token)
        }
        let writer = try #require(one.authenticatedLedger(name: "shared", token: token))
        let watched = try #require(two.authenticatedLedger(name: "shared", token: token))
        #expect(two.authenticatedLedger(name: "shared", token: "wrong") == nil)
        let (heads, continuation) = AsyncStream.makeStream(of: (Int64, ContinuousClock.Instant).self)
        // The time is taken in the watcher itself (on the ledger's thread), not when this task gets to run,
        // and measured from the push's acknowledgement (the commit), not from a busy machine's queueing.
        _ = await watched.watch { continuation.yield(($0, ContinuousClock.now)) }
        _ = try await writer.push(clientId: UUID(), items: [putItem(1, UUID(), base: 0, lunch())])
        let acknowledged = ContinuousClock.now
        let woke = await withTaskGroup(of: (Int64, ContinuousClock.Instant)?.self) { group in
            group.addTask { for await head in heads { return head }; return nil }
            group.addTask { try? await Task.sleep(for: .seconds(10)); return nil }  // a bound, not a synchronisation
            let first = await group.next() ?? nil
            group.cancelAll()
            continuation.finish()
            return first
        }
        #expect(woke?.0 == 1)
        #expect(try #require(woke).1 - acknowledged < .seconds(1))
        #expect(watched.head == 1)
        // A ledger added through daemon two after daemon one started is served by daemon one.
        let euro = try #require(Currency(code: "EUR"))
        let served = try await onOwnThread {
            let later = try two.addLedger(name: "later", currency: euro)
            return one.authenticatedLedger(name: "later", token: later)?.currency
        }
        #expect(served == euro)
        await one.close()
        await two.close()
    }
}
