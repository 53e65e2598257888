import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import ExpenseTransport
import Foundation
import PostgreSQL
import Testing
import TestSupport

/// `expensed migrate` (docs/deploy.md, "Moving a ledger"): a client that synced with a daemon on SQLite syncs
/// with a daemon on PostgreSQL serving the moved ledger, and back, without pulling again or healing, and its
/// pending changes land exactly once.
@Suite(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
struct LedgerMigrationSyncTests {
    private static func serve(_ ledgers: any LedgerProvider) throws -> Server { try serveOnLoopback(ledgers) }

    private static func remote(_ server: Server, token: String) -> RemoteConfiguration {
        RemoteConfiguration(server: "127.0.0.1:\(server.address.port)", ledger: "default", token: token)
    }

    @Test func aClientSyncsAcrossAMoveToPostgresAndBackWithoutPullingAgain() async throws {
        let conninfo = try PostgresTestCluster.required()
        let schema = PostgresTestCluster.uniqueSchema()
        try await onOwnThread {
            let admin = try PostgresConnection(conninfo)
            _ = try admin.execute("CREATE SCHEMA " + admin.quotedIdentifier(schema))
        }
        defer {
            if let admin = try? PostgresConnection(conninfo) { _ = try? admin.execute("DROP SCHEMA " + admin.quotedIdentifier(schema) + " CASCADE") }
        }
        let sqliteDaemon = try TestDaemon()
        let ann = try TestClient("ann")
        let bob = try TestClient("bob")
        let lunch = try ann.add(1250, "food")
        let taxi = try ann.add(3000, "travel")
        _ = try ann.add(500, "refund")
        try await ann.sync(sqliteDaemon)
        try ann.edit(lunch.id, ExpenseDraft(note: "with bob"))
        try ann.delete(taxi.id)
        try await ann.sync(sqliteDaemon)
        _ = try bob.add(700, "coffee")
        try await bob.sync(sqliteDaemon)
        try await ann.sync(sqliteDaemon)
        // A push the SQLite daemon applied but whose answer was lost: still pending at the client.
        let lost = try ann.add(800, "lost answer")
        let faults = Counter()
        ann.attempts = 1
        ann.dependencies.faultInjection = { point, _ in
            guard point == .pushAnswered, faults.increment() == 1 else { return }
            throw SyncError.unreachable("connection dropped by the test")
        }
        await #expect(throws: SyncError.self) { try await ann.sync(sqliteDaemon) }
        ann.dependencies.faultInjection = nil
        ann.attempts = nil
        #expect(try await sqliteDaemon.records()[lost.id] != nil)
        // Changes made while the ledger moves: pending, not yet pushed anywhere.
        _ = try ann.add(4200, "rent")
        _ = try ann.add(99, "snack")
        let sourceIdentity = try sqliteDaemon.ledger.identity

        let toPostgres = try await onOwnThread {
            try LedgerMigration.copy(from: SQLiteLedgerSnapshots(dataDirectory: sqliteDaemon.directory, locking: true),
                                     to: PostgresLedgerSnapshots(conninfo: conninfo, schema: schema))
        }
        #expect(toPostgres.map(\.ledger) == ["default"])
        // Again into a database that has it now: refused, nothing copied.
        #expect(throws: LedgerError.ledgerExists("default")) {
            try LedgerMigration.copy(from: SQLiteLedgerSnapshots(dataDirectory: sqliteDaemon.directory, locking: true),
                                     to: PostgresLedgerSnapshots(conninfo: conninfo, schema: schema))
        }
        let postgres = try await onOwnThread { try PostgresLedgerDirectory(conninfo: conninfo, schema: schema, listens: false) }
        let postgresServer = try Self.serve(postgres)
        ann.remote = Self.remote(postgresServer, token: sqliteDaemon.token)
        bob.remote = ann.remote
        let moved = try await ann.sync(sqliteDaemon)
        #expect(moved.pulled == 0 && moved.pending == 0 && moved.newConflicts == 0)
        let movedLedger = try #require(postgres.authenticatedLedger(name: "default", token: sqliteDaemon.token))
        #expect(movedLedger.identity == sourceIdentity)
        let bobAfter = try await bob.sync(sqliteDaemon)
        #expect(bobAfter.pulled == 3 && bobAfter.pushed == 0)  // the lost answer's and ann's two changes, once each
        #expect(try ann.live() == bob.live() && ann.live().count == 6)

        // And back, into a new data directory.
        let back = NSTemporaryDirectory() + "expense-migrate-back-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: back) }
        postgresServer.stop()
        await postgresServer.waitUntilStopped()
        await postgres.close()
        _ = try ann.add(1, "stamp")
        _ = try await onOwnThread {
            try LedgerMigration.copy(from: PostgresLedgerSnapshots(conninfo: conninfo, schema: schema),
                                     to: SQLiteLedgerSnapshots(dataDirectory: back, locking: false))
        }
        let sqliteAgain = try await onOwnThread { try LedgerDirectory(dataDirectory: back, defaultCurrency: .usd) }
        let backServer = try Self.serve(sqliteAgain)
        ann.remote = Self.remote(backServer, token: sqliteDaemon.token)
        bob.remote = ann.remote
        let returned = try await ann.sync(sqliteDaemon)
        #expect(returned.pulled == 0 && returned.pushed == 1)
        let bobBack = try await bob.sync(sqliteDaemon)
        #expect(bobBack.pulled == 1)
        #expect(try ann.live() == bob.live() && ann.live().count == 7)
        backServer.stop()
        await backServer.waitUntilStopped()
        await sqliteAgain.close()
        await sqliteDaemon.stop()
    }

    @Test func aServedDataDirectoryIsRefusedAsASource() throws {
        let directory = NSTemporaryDirectory() + "expense-migrate-locked-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let held = try DataDirectoryLock(directory: directory)
        #expect {
            _ = try SQLiteLedgerSnapshots(dataDirectory: directory, locking: true)
        } throws: { error in
            if case LedgerError.dataDirectoryInUse = error { true } else { false }
        }
        _ = held
    }
}
