import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import Foundation
import Testing
import TestSupport

/// Stories of a push whose answer is lost (Protocol.md §5.2 `duplicate`, §7.6 "Exactly once"): the daemon
/// applied or decided the push, the client never heard it, and the next sync must learn what really happened
/// instead of guessing from a pull. Each with a real daemon (SQLite ledger, network front on port 0).
@Suite(.serialized) struct LostAnswerStoryTests {
    /// Loses the answer of the first push after it was read (the daemon decided and committed it); with one
    /// attempt the sync then fails, as an `expense sync` cut by a dropped connection does (exit 69).
    private func cutNextPush(_ client: TestClient) {
        let faults = Counter()
        client.attempts = 1
        client.dependencies.faultInjection = { point, _ in
            guard point == .pushAnswered, faults.increment() == 1 else { return }
            throw SyncError.unreachable("connection dropped by the test")
        }
    }

    private func reconnect(_ client: TestClient) {
        client.dependencies.faultInjection = nil
        client.attempts = nil
    }

    /// Ann's edit is applied but its answer is lost; Bob, having seen it, corrects the same field on purpose.
    /// Ann's next sync must not report a conflict on her own applied change (a `--mine` would revert Bob).
    private func appliedThenCorrected(_ daemon: TestDaemon, ann: TestClient, cut: () async throws -> Void) async throws {
        let bob = try TestClient("bob")
        let expense = try ann.add(1000, "food", note: "dinner")
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        try ann.edit(expense.id, ExpenseDraft(amount: 1100))
        try await cut()
        #expect(try await daemon.records()[expense.id]?.expense.amount == 1100)  // applied, answer lost
        try await bob.sync(daemon)
        try bob.edit(expense.id, ExpenseDraft(amount: 1200))
        #expect(try await bob.sync(daemon).pushed == 1)

        let report = try await ann.sync(daemon)
        #expect(report.newConflicts == 0 && report.openConflicts == 0 && report.pending == 0)
        let server = liveExpenses(try await daemon.records())
        #expect(server[expense.id]?.amount == 1200)
        #expect(try ann.live() == server)
    }

    @Test func appliedButAnswerLostIsNotAConflictLater() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann", persistent: true)
        try await appliedThenCorrected(daemon, ann: ann) {
            cutNextPush(ann)
            await #expect(throws: SyncError.self) { try await ann.sync(daemon) }
            reconnect(ann)
        }
        await daemon.stop()
    }

    /// The same story through a real connection that forwards the push to the daemon and drops its answer.
    @Test func answerDroppedByTheConnectionIsNotAConflictLater() async throws {
        let daemon = try TestDaemon()
        let proxy = try AnswerDroppingProxy(forwardingTo: daemon.port)
        let ann = try TestClient("ann")
        ann.remote = RemoteConfiguration(server: proxy.address, ledger: "default", token: daemon.token)
        try await appliedThenCorrected(daemon, ann: ann) {
            proxy.dropNextPushAnswer()
            ann.attempts = 1
            await #expect(throws: SyncError.self) { try await ann.sync(daemon) }
            #expect(proxy.droppedCount == 1)
            ann.attempts = nil
        }
        proxy.stop()
        await daemon.stop()
    }

    /// A conflict whose answer was lost is still a conflict: the duplicate answer carries it.
    @Test func conflictWhoseAnswerWasLostIsShownOnce() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann"), bob = try TestClient("bob")
        let expense = try ann.add(1000, "food")
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        try bob.edit(expense.id, ExpenseDraft(amount: 1300))
        try await bob.sync(daemon)
        try ann.edit(expense.id, ExpenseDraft(amount: 1100))
        cutNextPush(ann)
        await #expect(throws: SyncError.self) { try await ann.sync(daemon) }
        reconnect(ann)
        let report = try await ann.sync(daemon)
        #expect(report.newConflicts == 1 && report.openConflicts == 1 && report.pending == 0)
        let conflict = try ann.ledger.conflict(expense.idString)
        #expect(conflict.mine == .put && conflict.mineFields == ExpenseDraft(amount: 1100, currency: "USD", split: "", charged: 0, parts: ""))
        #expect(conflict.theirs.expense.amount == 1300)
        await daemon.stop()
    }

    /// Ann edits the category; the push is cut (applied, answer lost); Ann then edits the amount. Bob changes
    /// the amount. Ann's amount was made against the version she saw, which did not hold Bob's amount: it is a
    /// conflict, never a silent overwrite of Bob's amount.
    @Test func secondQueuedChangeKeepsTheBaseThePersonSaw() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann", persistent: true), bob = try TestClient("bob")
        let expense = try ann.add(1000, "food")
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        try ann.edit(expense.id, ExpenseDraft(category: "travel"))
        cutNextPush(ann)
        await #expect(throws: SyncError.self) { try await ann.sync(daemon) }
        reconnect(ann)
        try ann.edit(expense.id, ExpenseDraft(amount: 1100))
        try bob.edit(expense.id, ExpenseDraft(amount: 1200))
        #expect(try await bob.sync(daemon).pushed == 1)

        let report = try await ann.sync(daemon)
        #expect(report.newConflicts == 1 && report.openConflicts == 1)
        let server = try await daemon.records()
        #expect(server[expense.id]?.expense.amount == 1200 && server[expense.id]?.expense.category == "travel")
        let conflict = try ann.ledger.conflict(expense.idString)
        #expect(conflict.mine == .put && conflict.mineFields == ExpenseDraft(amount: 1100, currency: "USD", split: "", charged: 0, parts: ""))
        #expect(conflict.theirs.expense.amount == 1200)
        await daemon.stop()
    }

    /// Two own changes of the same field, the first cut: the second is based on the first (the person saw
    /// it), so it applies without a conflict on the person's own value.
    @Test func secondChangeOfTheSameFieldAfterACutApplies() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann")
        let expense = try ann.add(1000, "food")
        try await ann.sync(daemon)
        try ann.edit(expense.id, ExpenseDraft(amount: 1100))
        cutNextPush(ann)
        await #expect(throws: SyncError.self) { try await ann.sync(daemon) }
        reconnect(ann)
        try ann.edit(expense.id, ExpenseDraft(amount: 1150))
        let report = try await ann.sync(daemon)
        #expect(report.newConflicts == 0 && report.openConflicts == 0 && report.pending == 0)
        #expect(try await daemon.records()[expense.id]?.expense.amount == 1150)
        await daemon.stop()
    }

    /// Bob deletes R; Ann edits R, her push is cut (a conflict she never hears of), then she deletes R too.
    /// What is pending is her newest intent, the delete: nothing is left to decide, and nothing revives R.
    @Test func deleteAfterACutEditSupersedesIt() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann", persistent: true), bob = try TestClient("bob")
        let expense = try ann.add(1000, "food")
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        try bob.delete(expense.id)
        try await bob.sync(daemon)
        try ann.edit(expense.id, ExpenseDraft(note: "stale"))
        cutNextPush(ann)
        await #expect(throws: SyncError.self) { try await ann.sync(daemon) }
        reconnect(ann)
        try ann.delete(expense.id)

        let report = try await ann.sync(daemon)
        let conflicts = try ann.ledger.store.conflicts()
        #expect(conflicts.allSatisfy { $0.mine == .delete }, "the stale edit is not what is pending")
        #expect(report.openConflicts == 0 && report.pending == 0)
        for conflict in conflicts { try ann.ledger.resolve(conflict, .mine) }
        try await ann.sync(daemon)
        let server = try await daemon.records()
        #expect(server[expense.id]?.deleted == true)
        #expect(try ann.live()[expense.id] == nil)
        await daemon.stop()
    }
}
