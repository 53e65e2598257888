import TestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import Foundation
import Synchronization
import Testing

/// A daemon restored from a backup (Protocol.md §5.7): clients that synced with the lost history heal instead of
/// diverging. The outcome: after a restore and the syncs of every client, every client equals the daemon, and the
/// daemon holds every change any client had seen acknowledged, none twice.
@Suite(.serialized) struct RestoreHealingTests {
    /// Backup, more changes from two clients (acknowledged), restore, sync every client.
    @Test func afterARestoreEveryClientHealsAndTheDaemonHoldsEveryAcknowledgedChangeOnce() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann", persistent: true), bob = try TestClient("bob")
        let lunch = try ann.add(1200, "food", note: "lunch")
        let taxi = try ann.add(2500, "travel", note: "taxi")
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        let backup = try daemon.backup()

        // After the backup, acknowledged by the daemon and seen by both.
        let books = try ann.add(3000, "books")
        try ann.edit(lunch.id, ExpenseDraft(amount: 1500))
        try await ann.sync(daemon)
        let tea = try bob.add(400, "food", note: "tea")
        try bob.delete(taxi.id)
        try await bob.sync(daemon)
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        let acknowledged = liveExpenses(try await daemon.records())
        #expect(acknowledged.count == 3)
        // Offline, never sent before the restore.
        let cinema = try ann.add(900, "fun")

        try await daemon.restore(from: backup)
        for _ in 0..<2 {
            for client in [ann, bob] {
                let report = try await client.sync(daemon)
                #expect(report.openConflicts == 0 && report.pending == 0, "\(client.name): \(report)")
            }
        }
        let held = liveExpenses(try await daemon.records())
        var expected = acknowledged
        expected[cinema.id] = cinema
        #expect(held == expected)
        #expect(Set(held.keys) == [lunch.id, books.id, tea.id, cinema.id])
        #expect(held[lunch.id]?.amount == 1500)
        #expect(try ann.live() == held)
        #expect(try bob.live() == held)
        let records = try await daemon.records()
        #expect(records[taxi.id]?.deleted == true, "the acknowledged delete was lost")
        await daemon.stop()
    }

    /// Two clients heal the same lost changes at the same time (both pull before either pushes): the second one's
    /// creates and puts are no-ops on the daemon (no new version, no new record).
    @Test func twoClientsHealingAtOnceDoubleNothing() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann"), bob = try TestClient("bob")
        let lunch = try ann.add(1200, "food")
        try await ann.sync(daemon)
        let backup = try daemon.backup()
        let books = try ann.add(3000, "books")
        try ann.edit(lunch.id, ExpenseDraft(amount: 1500, note: "team"))
        try await ann.sync(daemon)
        try await bob.sync(daemon)  // bob holds both acknowledged changes too

        try await daemon.restore(from: backup)
        let annEngine = ann.engine(daemon), bobEngine = bob.engine(daemon)
        let afterBob = try await onOwnThread { [annEngine, bobEngine, ann, daemon] () throws -> [UUID: Record] in
            let connection = try annEngine.connect()
            defer { connection.close() }
            var report = SyncEngine.Report()
            try annEngine.heal(on: connection, from: try #require(try ann.ledger.healPoint()), report: &report)
            _ = try bobEngine.sync()  // heals and pushes first
            let records = Mutex<[UUID: Record]>([:])
            blocking { if let all = try? await daemon.records() { records.withLock { $0 = all } } }
            try annEngine.run(on: connection, report: &report)
            #expect(report.pushed == 2, "ann re-sent the create and the edit: \(report)")
            #expect(report.openConflicts == 0 && report.pending == 0, "\(report)")
            return records.withLock { $0 }
        }
        #expect(afterBob[lunch.id]?.expense.amount == 1500 && afterBob[books.id] != nil)
        let afterAnn = try await daemon.records()
        #expect(afterAnn.mapValues(\.version) == afterBob.mapValues(\.version), "a repeated heal made new versions")
        #expect(afterAnn.count == 2)
        #expect(try ann.live() == liveExpenses(afterAnn))
        await daemon.stop()
    }

    /// The reporter's measurement: once the restored head has passed a client's old cursor, `sync` used to exit 0
    /// and skip new records (local USD 63.00 against the daemon's USD 16.00, pending 0).
    @Test func aClientWhoseOldCursorTheRestoredHeadPassedSeesEveryNewRecord() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann"), bob = try TestClient("bob")
        try ann.add(1000, "food")
        try await ann.sync(daemon)
        let backup = try daemon.backup()
        try ann.add(2000, "food")
        try ann.add(3000, "food")
        try await ann.sync(daemon)  // ann's cursor: 3

        try await daemon.restore(from: backup)  // head 1
        // Bob, new, adds records the restored daemon numbers 2, 3, 4: past ann's old cursor.
        try bob.add(100, "food")
        try bob.add(200, "food")
        try bob.add(300, "food")
        try await bob.sync(daemon)
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        let held = liveExpenses(try await daemon.records())
        #expect(held.count == 6)
        #expect(held.values.reduce(0) { $0 + $1.amount } == 6600)
        #expect(try ann.live() == held)
        #expect(try bob.live() == held)
        await daemon.stop()
    }

    /// A change the daemon lost that a healed client then changed differently is a conflict, shown, never a silent
    /// overwrite either way.
    @Test func aLostChangeThatDivergedIsAConflict() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann"), bob = try TestClient("bob")
        let lunch = try ann.add(1200, "food")
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        let backup = try daemon.backup()
        try ann.edit(lunch.id, ExpenseDraft(amount: 1500))
        try await ann.sync(daemon)  // acknowledged, then lost by the restore; bob never saw it

        try await daemon.restore(from: backup)
        try await bob.sync(daemon)
        try bob.edit(lunch.id, ExpenseDraft(amount: 1800))
        try await bob.sync(daemon)
        let report = try await ann.sync(daemon)
        #expect(report.openConflicts == 1, "\(report)")
        let conflict = try #require(try ann.ledger.store.conflicts().first)
        #expect(conflict.mineFields.amount == 1500 && conflict.theirs.expense.amount == 1800)
        await daemon.stop()
    }
}

/// `cursor_expired` (reserved, no longer sent: Protocol.md §5.3, §8) is handled like a replaced history: the
/// client pulls again from 0 and ends equal to the daemon, with no error.
@Test func aCursorExpiredPullIsHealedFromZero() async throws {
    let daemon = try TestDaemon()
    let client = try TestClient("client")
    let kept = try client.add(100, "food")
    let purged = try client.add(200, "food")
    try client.delete(purged.id)
    try await client.sync(daemon)
    let cursor = try client.ledger.pullCursor()
    let identity = try #require(try daemon.ledger.identity)
    let held = try await daemon.records()
    await daemon.stop()

    let day = try #require(CalendarDay("2026-03-01"))
    let newer = Record(expense: Expense(id: UUID(), amount: 700, currency: .usd, category: "new", date: day, note: ""),
                       version: 1, seq: cursor + 2, deleted: false)
    let page = [try #require(held[kept.id]), newer]
    let canned = try CannedDaemon { method, since, id in
        switch (method, since) {
        case ("hello", _):
            return RPCResponse.success(id: id, result: HelloResult(protocolVersion: ProtocolVersion.current, server: "canned",
                                                                     ledger: "default", currency: .usd, cursor: cursor + 2,
                                                                     lastMutationId: 2, identity: identity))
        case ("pull", 0):
            return RPCResponse.success(id: id, result: PullResult(changes: page, cursor: cursor + 2, more: false))
        case ("pull", _):
            return RPCResponse.error(id: id, RPCError(code: -32005, message: "purged", reason: "cursor_expired"))
        default:
            return RPCResponse.success(id: id, result: PushResult(results: [], cursor: cursor + 2))
        }
    }
    var engine = SyncEngine(ledger: client.ledger, remote: RemoteConfiguration(server: "127.0.0.1:\(canned.port)", ledger: "default",
                                                                              token: "t"))
    engine.configuration.timeout = .seconds(20)
    engine.configuration.connectTimeout = .seconds(20)
    let report = try await onOwnThread { [engine] in try engine.sync() }
    #expect(report.pending == 0 && report.openConflicts == 0)
    #expect(try client.live() == [kept.id: kept, newer.expense.id: newer.expense])
    #expect(try client.ledger.pullCursor() == cursor + 2)
    canned.stop()
    #expect(canned.pullSinces == [cursor, 0])
}
