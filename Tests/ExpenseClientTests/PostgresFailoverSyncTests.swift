import LedgerTestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import ExpenseTransport
import Foundation
import PostgreSQL
import Synchronization
import Testing
import TestSupport

/// Two daemons on one PostgreSQL ledger (docs/reliability.md, "Several daemons serialise per ledger") with a
/// client failing over between them (docs/usage.md, "Several addresses"): nothing but the ledger id and `hello`'s
/// `lastMutationId` tells the client the second daemon is the same ledger and what the first one committed.
@Suite(.serialized, .enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
struct PostgresFailoverSyncTests {
    /// How often the daemon acknowledged each change as applied, across the thread the engine ran on.
    final class Counts: Sendable { let value = Mutex<[UUID: Int]>([:]) }
    /// What the engine logged.
    final class Lines: Sendable { let value = Mutex<[String]>([]) }

    /// The push of three changes goes through daemon 1 (behind a proxy that drops its answer after daemon 1
    /// committed it); the sync moves on to daemon 2, whose `hello` reports the committed lastMutationId: each
    /// change is applied once, at seqs 1…3, and a second client syncing through daemon 1 pulls exactly those.
    @Test func aPushWhoseAnswerWasLostThroughOneDaemonIsSettledExactlyOnceThroughTheOther() async throws {
        let conninfo = try PostgresTestCluster.required()
        let schema = PostgresTestCluster.uniqueSchema()
        let (one, two, token) = try await onOwnThread {
            let admin = try PostgresConnection(conninfo)
            _ = try admin.execute("CREATE SCHEMA " + admin.quotedIdentifier(schema))
            let one = try PostgresLedgerDirectory(conninfo: conninfo, schema: schema, listens: false)
            let token = try one.addLedger(name: "default", currency: .usd)
            return (one, try PostgresLedgerDirectory(conninfo: conninfo, schema: schema, listens: false), token)
        }
        defer {
            if let admin = try? PostgresConnection(conninfo) { _ = try? admin.execute("DROP SCHEMA " + admin.quotedIdentifier(schema) + " CASCADE") }
        }
        let first = try serveOnLoopback(one), second = try serveOnLoopback(two)
        let proxy = try AnswerDroppingProxy(forwardingTo: first.address.port)
        defer { proxy.stop() }
        let secondAddress = "127.0.0.1:\(second.address.port)"

        let ann = try TestClient("ann", persistent: true)
        let added = try (1...3).map { try ann.add(Int64($0) * 100, "food", note: "n\($0)") }
        let applied = Counts(), lines = Lines()
        let dependencies = SyncEngine.Dependencies(shuffle: { $0 },  // daemon 1 (through the proxy) first
                                                   onApplied: { entry, _ in applied.value.withLock { $0[entry.id, default: 0] += 1 } })
        var engine = loopbackEngine(ann, server: "\(proxy.address),\(secondAddress)", token: token, dependencies: dependencies)
        engine.configuration.log = { line in lines.value.withLock { $0.append(line) } }
        proxy.dropNextPushAnswer()
        let report = try await onOwnThread { [engine] in try engine.sync() }

        #expect(proxy.droppedCount == 1)
        #expect(report.pushed == 3 && report.pending == 0 && report.openConflicts == 0, "\(report)")
        #expect(try ann.ledger.store.metaValue(.lastServer) == secondAddress, "\(lines.value.withLock { $0 })")
        let counts = applied.value.withLock { $0 }
        #expect(counts.count == 3 && counts.values.allSatisfy { $0 == 1 }, "\(counts)")

        // In the database, read through either daemon: three records at seqs 1…3, each at version 1.
        for directory in [one, two] {
            let ledger = try #require(directory.authenticatedLedger(name: "default", token: token))
            let pulled = try await ledger.pull(PullRequest(since: 0, limit: 100))
            #expect(pulled.changes.map(\.seq) == [1, 2, 3], "\(pulled.changes)")
            #expect(pulled.changes.allSatisfy { $0.version == 1 })
            #expect(Set(pulled.changes.map(\.expense.id)) == Set(added.map(\.id)))
        }

        // Another client through daemon 1 alone converges on the same three.
        let bob = try TestClient("bob")
        let bobEngine = loopbackEngine(bob, server: "127.0.0.1:\(first.address.port)", token: token)
        let bobReport = try await onOwnThread { [bobEngine] in try bobEngine.sync() }
        #expect(bobReport.pulled == 3)
        #expect(try bob.live() == ann.live())

        for server in [first, second] {
            server.stop()
            await server.waitUntilStopped()
        }
        await one.close()
        await two.close()
    }
}
