import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import Foundation
import Testing
import TestSupport

/// History, undo and compaction across two machines (docs/usage.md, "History and undo"; Protocol.md §5.8, §5.9), each
/// with the in-process daemon and two clients.
@Suite(.serialized) struct HistoryUndoStoryTests {
    private func history(_ client: TestClient, _ daemon: TestDaemon, _ id: UUID) async throws -> [HistoryEntry] {
        let engine = client.engine(daemon)
        return try await onOwnThread { [engine] in try engine.history(id: id).entries }
    }

    /// What `expense undo ID` does: the inverse of the daemon's last entry of the expense.
    private func undo(_ client: TestClient, _ daemon: TestDaemon, _ id: UUID) async throws {
        let entry = try #require(try await history(client, daemon, id).last)
        let plan = try #require(UndoPlan(reverting: entry, tombstone: try client.ledger.serverCopy(id)?.expense))
        try client.ledger.apply(plan)
    }

    @Test func historyNamesWhoChangedWhatAndUndoRoundTripsOnTwoMachines() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann", persistent: true), bob = try TestClient("bob")
        let expense = try ann.ledger.journaledAdd(ExpenseDraft(amount: 1250, currency: "USD", category: "food", date: "2026-03-01", note: "lunch"))
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        try bob.ledger.journaledEdit(try bob.ledger.find(expense.idString), changes: ExpenseDraft(note: "team lunch"))
        try await bob.sync(daemon)
        let entries = try await history(ann, daemon, expense.id)
        #expect(entries.map(\.action) == [.create, .edit])
        // Who: the token each push came with (both machines hold the ledger's first token, `default`); which
        // machine: the entry's client id.
        #expect(entries.map(\.who) == ["default", "default"])
        #expect(entries.map(\.clientId) == [try ann.ledger.store.clientId(), try bob.ledger.store.clientId()])
        #expect(entries[1].changes == [HistoryEntry.Change(field: "note", from: .text("lunch"), to: .text("team lunch"))])
        // Ann undoes Bob's edit: the inverse edit, synced to Bob.
        try await ann.sync(daemon)
        try await undo(ann, daemon, expense.id)
        #expect(try await ann.sync(daemon).pushed == 1)
        try await bob.sync(daemon)
        #expect(try bob.live()[expense.id]?.note == "lunch")
        // Undoing the undo (an edit again), then a delete and its undo (a restore), then the create's undo (a delete).
        try bob.delete(expense.id)
        try await bob.sync(daemon)
        try await ann.sync(daemon)
        #expect(try ann.live()[expense.id] == nil)
        try await undo(ann, daemon, expense.id)
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        #expect(try bob.live()[expense.id]?.note == "lunch")
        #expect(try await history(bob, daemon, expense.id).map(\.action) == [.create, .edit, .edit, .delete, .restore])
        let server = liveExpenses(try await daemon.records())
        #expect(try ann.live() == server)
        #expect(try bob.live() == server)
        await daemon.stop()
    }

    @Test func undoingAChangeSomeoneBuiltOnIsAConflictNotAnOverwrite() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann"), bob = try TestClient("bob")
        let expense = try ann.add(1000, "food", note: "a")
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        try ann.ledger.journaledEdit(try ann.ledger.find(expense.idString), changes: ExpenseDraft(note: "b"))
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        try bob.edit(expense.id, ExpenseDraft(note: "c"))
        try await bob.sync(daemon)
        try await ann.sync(daemon)
        // What `expense undo --last` does on Ann's machine: her edit made version 2; Bob's is on top.
        let journal = try ann.ledger.journal()
        let last = try #require(journal.last)
        let annId = try ann.ledger.store.clientId()
        let mine = try #require(try await history(ann, daemon, expense.id).last { $0.clientId == annId && $0.action == .edit })
        #expect(mine.version == 2)
        try ann.ledger.apply(try #require(UndoPlan(reverting: last, baseVersion: mine.version)), undoing: journal.count - 1)
        let report = try await ann.sync(daemon)
        #expect(report.newConflicts == 1 && report.pushed == 0)
        #expect(liveExpenses(try await daemon.records())[expense.id]?.note == "c")
        #expect(try ann.ledger.journal().last?.command == "undo")
        #expect(try ann.ledger.journal()[journal.count - 1].undone)
        await daemon.stop()
    }

    @Test func undoLastOfAnUnsyncedAddDropsItLocally() throws {
        let ann = try TestClient("ann")
        let expense = try ann.ledger.journaledAdd(ExpenseDraft(amount: 5, currency: "USD", category: "x", date: "2026-03-01"))
        let journal = try ann.ledger.journal()
        let lastEntry = try #require(journal.last)
        try ann.ledger.apply(try #require(UndoPlan(reverting: lastEntry, baseVersion: 0)), undoing: journal.count - 1)
        #expect(try ann.live()[expense.id] == nil)
        #expect(try ann.ledger.pendingCount() == 0)
    }

    @Test func historySurvivesADaemonRestart() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann")
        let expense = try ann.add(1000, "food")
        try await ann.sync(daemon)
        try await daemon.restart()
        #expect(try await history(ann, daemon, expense.id).map(\.who) == ["default"])
        await daemon.stop()
    }

    /// Bob is offline past the purge horizon with unsynced changes: one sync pulls from his old cursor the
    /// deletions made meanwhile (purged ones too: no cursor expires), and nothing
    /// of his is lost, nor does a purged deletion come back to life on anybody's machine: his edit of it meets
    /// the deletion as a conflict (shown like any other), and only keeping his side brings the expense back.
    @Test func aClientOfflinePastTheHorizonKeepsSyncingWithNothingLost() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann"), bob = try TestClient("bob", persistent: true)
        let a = try ann.add(100, "a"), b = try ann.add(200, "b"), c = try ann.add(300, "c"), e = try ann.add(400, "e")
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        // Bob, offline: edits a and b, adds d.
        try bob.edit(a.id, ExpenseDraft(note: "bob's a"))
        try bob.edit(b.id, ExpenseDraft(note: "bob's b"))
        let d = try bob.add(500, "d")
        // Ann deletes b, c and e; the daemon compacts everything it may.
        try ann.delete(b.id)
        try ann.delete(c.id)
        try ann.delete(e.id)
        try await ann.sync(daemon)
        let report = try await daemon.ledger.compact(before: HistoryAuthor.now() + 10)
        #expect(report.tombstones == 2 && report.horizon > 0)
        let synced = try await bob.sync(daemon)
        #expect(synced.openConflicts == 1 && synced.openRejections == 0 && synced.pending == 0, "\(synced)")
        let conflict = try bob.ledger.conflict(String(UUIDText.lowercased(b.id).prefix(8)))
        #expect(conflict.kind == .editedHereDeletedThere && conflict.theirs.deleted, "\(conflict)")
        try await ann.sync(daemon)
        var server = liveExpenses(try await daemon.records())
        #expect(server[a.id]?.note == "bob's a")
        #expect(server[b.id] == nil, "a purged deletion stays a deletion")
        #expect(server[d.id] != nil && server[c.id] == nil && server[e.id] == nil)
        #expect(try ann.live() == server)
        // Bob keeps his edit: the expense is restored with it, on every machine.
        try bob.ledger.resolve(conflict, .mine)
        let resolved = try await bob.sync(daemon)
        #expect(resolved.openConflicts == 0 && resolved.pending == 0, "\(resolved)")
        try await ann.sync(daemon)
        server = liveExpenses(try await daemon.records())
        #expect(server[b.id]?.note == "bob's b")
        #expect(try bob.live() == server)
        let annLive = try ann.live()
        #expect(annLive == server, "\(annLive.mapValues(\.note)) vs \(server.mapValues(\.note))")
        await daemon.stop()
    }
}
