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

/// `expensed backup FILE --ledger NAME --postgres CONNINFO` (docs/deploy.md, "Backing up a PostgreSQL
/// deployment"): a backup taken while a client pushes is one consistent state; restored into a data directory
/// and served, the clients heal exactly as after a SQLite backup restore (Protocol.md §5.7,
/// `RestoreHealingTests`): the same ledger id, a new epoch, every acknowledged change held once.
@Suite(.serialized, .enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
struct PostgresBackupRestoreTests {
    /// Set when the writer may stop.
    final class Flag: Sendable { let value = Mutex(false) }

    private static func sync(_ client: TestClient, _ server: Server, token: String) async throws -> SyncEngine.Report {
        let engine = loopbackEngine(client, server: "127.0.0.1:\(server.address.port)", token: token)
        return try await onOwnThread { [engine] in try engine.sync() }
    }

    @Test func aBackupTakenWhileAClientPushesRestoresAndTheClientsHeal() async throws {
        let conninfo = try PostgresTestCluster.required()
        let schema = PostgresTestCluster.uniqueSchema()
        let (postgres, token) = try await onOwnThread {
            let admin = try PostgresConnection(conninfo)
            _ = try admin.execute("CREATE SCHEMA " + admin.quotedIdentifier(schema))
            let directory = try PostgresLedgerDirectory(conninfo: conninfo, schema: schema, listens: false)
            return (directory, try directory.addLedger(name: "default", currency: .usd))
        }
        let scratch = NSTemporaryDirectory() + "expense-pg-backup-" + UUID().uuidString
        defer {
            try? FileManager.default.removeItem(atPath: scratch)
            if let admin = try? PostgresConnection(conninfo) { _ = try? admin.execute("DROP SCHEMA " + admin.quotedIdentifier(schema) + " CASCADE") }
        }
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let server = try serveOnLoopback(postgres)
        let ann = try TestClient("ann", persistent: true), bob = try TestClient("bob"), carl = try TestClient("carl")
        let lunch = try ann.add(1200, "food", note: "lunch")
        let taxi = try ann.add(2500, "travel", note: "taxi")
        _ = try await Self.sync(ann, server, token: token)
        _ = try await Self.sync(bob, server, token: token)

        // carl pushes one change per sync while the backup is taken.
        let file = scratch + "/default.backup.sqlite"
        let stop = Flag()
        let writer = Task {
            var count = 0
            while !stop.value.withLock({ $0 }) || count < 3 {
                _ = try carl.add(Int64(100 + count), "fun", note: "carl \(count)")
                _ = try await Self.sync(carl, server, token: token)
                count += 1
            }
            return count
        }
        let report = try await onOwnThread { try PostgresLedgerBackup.backup(conninfo: conninfo, schema: schema, ledger: "default", to: file) }
        stop.value.withLock { $0 = true }
        let carlPushed = try await writer.value
        #expect(report.ledger == "default" && report.head >= 2, "\(report)")

        // The backup is one state of the ledger: its totals are the sum of its records (checked by the copy) and
        // it holds a prefix of carl's changes (each sync of one change commits alone).
        let backedUp = try await onOwnThread { try SQLiteLedgerStore(path: file, name: "default", currency: .usd).snapshot() }
        let carlsInBackup = backedUp.records.filter { $0.expense.category == "fun" }.map(\.expense.amount).sorted()
        #expect(carlsInBackup == (0..<carlsInBackup.count).map { Int64(100 + $0) })
        #expect(backedUp.records.count == 2 + carlsInBackup.count)

        // After the backup, acknowledged by PostgreSQL and seen by every client.
        let books = try ann.add(3000, "books")
        try ann.edit(lunch.id, ExpenseDraft(amount: 1500))
        _ = try await Self.sync(ann, server, token: token)
        try bob.delete(taxi.id)
        _ = try await Self.sync(bob, server, token: token)
        for client in [ann, bob, carl] { _ = try await Self.sync(client, server, token: token) }
        let ledger = try #require(postgres.authenticatedLedger(name: "default", token: token))
        let acknowledged = try await ledger.pull(PullRequest(since: 0, limit: 1000)).changes
        let acknowledgedLive = Dictionary(uniqueKeysWithValues: acknowledged.filter { !$0.deleted }.map { ($0.expense.id, $0.expense) })
        #expect(acknowledgedLive.count == 2 + carlPushed && acknowledgedLive[books.id] != nil && acknowledgedLive[taxi.id] == nil)
        let postgresIdentity = try #require(ledger.identity)
        server.stop()
        await server.waitUntilStopped()
        await postgres.close()

        // Restore into a data directory and serve it: the same ledger, a new epoch; every client heals.
        let data = scratch + "/data"
        let restored = try await onOwnThread { try LedgerDirectory.restore(dataDirectory: data, ledger: "default", from: file) }
        #expect(restored.identity.ledgerId == postgresIdentity.ledgerId && restored.identity.epoch != postgresIdentity.epoch)
        let directory = try await onOwnThread { try LedgerDirectory(dataDirectory: data, defaultCurrency: .usd) }
        let sqliteServer = try serveOnLoopback(directory)
        for _ in 0..<2 {
            for client in [ann, bob, carl] {
                let synced = try await Self.sync(client, sqliteServer, token: token)
                #expect(synced.openConflicts == 0 && synced.pending == 0, "\(client.name): \(synced)")
            }
        }
        let held = try #require(directory.authenticate(ledger: "default", token: token))
        let records = try await held.pull(PullRequest(since: 0, limit: 1000)).changes
        let heldLive = Dictionary(uniqueKeysWithValues: records.filter { !$0.deleted }.map { ($0.expense.id, $0.expense) })
        #expect(heldLive == acknowledgedLive)
        #expect(records.first { $0.expense.id == taxi.id }?.deleted == true, "the acknowledged delete was lost")
        for client in [ann, bob, carl] { #expect(try client.live() == heldLive, "\(client.name)") }
        sqliteServer.stop()
        await sqliteServer.waitUntilStopped()
        await directory.close()
    }
}
