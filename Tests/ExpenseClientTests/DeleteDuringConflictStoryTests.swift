import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import Foundation
import Testing

/// A delete made while that expense's own conflict is open supersedes the pending edit: it is pushed against the
/// server's version, a conflict only if the server changed since, and never shown as the other side's delete.
@Suite(.serialized) struct DeleteDuringConflictStoryTests {
    /// Bob deletes an expense Ann makes 12.00; Ann syncs first, so Bob holds "deleted here, edited there".
    private func deleteAgainstEdit(_ daemon: TestDaemon) async throws -> (TestClient, TestClient, Expense) {
        let ann = try TestClient("ann"), bob = try TestClient("bob")
        let expense = try ann.add(1000, "food")
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        try ann.edit(expense.id, ExpenseDraft(amount: 1200))
        try bob.delete(expense.id)
        try await ann.sync(daemon)
        #expect(try await bob.sync(daemon).newConflicts == 1)
        return (ann, bob, expense)
    }

    /// Ann and Bob change the category of one expense; Bob syncs second and holds the conflict (mine: a put).
    private func categoryConflict(_ daemon: TestDaemon) async throws -> (TestClient, TestClient, Expense) {
        let ann = try TestClient("ann"), bob = try TestClient("bob", persistent: true)
        let expense = try ann.add(1000, "food", note: "dinner")
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        try ann.edit(expense.id, ExpenseDraft(category: "meals"))
        try bob.edit(expense.id, ExpenseDraft(category: "dining"))
        try await ann.sync(daemon)
        #expect(try await bob.sync(daemon).newConflicts == 1)
        #expect(try bob.ledger.store.conflicts().map(\.mine) == [.put])
        return (ann, bob, expense)
    }

    @Test func aDeleteWhileTheEditConflictIsOpenIsSentAndClosesTheConflict() async throws {
        let daemon = try TestDaemon()
        let (ann, bob, expense) = try await categoryConflict(daemon)
        try bob.delete(expense.id)
        // The delete is the newest intent: the edit's conflict is superseded, not left open beside it.
        #expect(try bob.ledger.store.conflicts().isEmpty)
        let queued = try bob.ledger.store.pendingMutations(limit: 10)
        #expect(queued.map(\.type) == [.delete] && queued.first?.baseVersion == 2, "\(queued)")
        let report = try await bob.sync(daemon)
        #expect(report.openConflicts == 0 && report.newConflicts == 0 && report.pending == 0, "\(report)")
        #expect(try bob.ledger.store.conflicts().isEmpty, "bob's own delete must not come back as 'deleted there'")
        #expect(try await daemon.records()[expense.id]?.deleted == true)
        try await ann.sync(daemon)
        #expect(try ann.live()[expense.id] == nil && bob.live()[expense.id] == nil)
        await daemon.stop()
    }

    @Test func aDeleteWhileTheConflictIsOpenConflictsOnlyWhenTheServerChangedSince() async throws {
        let daemon = try TestDaemon()
        let (ann, bob, expense) = try await categoryConflict(daemon)
        try bob.delete(expense.id)
        try ann.edit(expense.id, ExpenseDraft(note: "dinner with Eve"))
        try await ann.sync(daemon)
        let report = try await bob.sync(daemon)
        #expect(report.newConflicts == 1 && report.openConflicts == 1, "\(report)")
        let conflict = try #require(try bob.ledger.store.conflicts().first)
        #expect(conflict.mine == .delete && !conflict.theirs.deleted && conflict.theirs.expense.note == "dinner with Eve")
        #expect(conflict.kind == .deletedHereEditedThere)
        #expect(try await daemon.records()[expense.id]?.deleted == false)
        await daemon.stop()
    }

    /// Bob deleted, Ann edited (Bob holds "deleted here, edited there"); Bob deletes the edited expense again.
    @Test func deletingAgainWhileADeleteConflictIsOpenSettlesIt() async throws {
        let daemon = try TestDaemon()
        let (_, bob, expense) = try await deleteAgainstEdit(daemon)
        #expect(try bob.live()[expense.id]?.amount == 1200)
        try bob.delete(expense.id)
        let report = try await bob.sync(daemon)
        #expect(report.openConflicts == 0 && report.pending == 0, "\(report)")
        #expect(try bob.ledger.store.conflicts().isEmpty)
        #expect(try await daemon.records()[expense.id]?.deleted == true)
        await daemon.stop()
    }

    /// Bob deleted, Ann edited; then Ann deletes too: both sides agree, nothing is left to settle.
    @Test func aDeleteConflictWhoseOtherSideIsDeletedTooIsSettledByThePull() async throws {
        let daemon = try TestDaemon()
        let (ann, bob, expense) = try await deleteAgainstEdit(daemon)
        try ann.delete(expense.id)
        try await ann.sync(daemon)
        let report = try await bob.sync(daemon)
        #expect(report.openConflicts == 0, "\(report)")
        #expect(try bob.ledger.store.conflicts().isEmpty)
        await daemon.stop()
    }
}
