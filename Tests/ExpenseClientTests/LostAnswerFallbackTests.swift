import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing

/// A lost answer whose outcome the daemon no longer keeps (a `duplicate` without `original`, outside the
/// retention window of Protocol.md §7.6): the client falls back to comparing with the pulled record, under the
/// same queue rules, one session step at a time against a local ledger.
@Suite struct LostAnswerFallbackTests {
    private let id = UUID()

    private func record(amount: Int64 = 1000, category: String = "food", version: Int64, deleted: Bool = false) throws -> Record {
        let expense = try ExpenseValidator.validate(ExpenseDraft(id: id.uuidString.lowercased(), amount: amount, currency: "USD",
                                                                 category: category, date: "2026-03-01", note: ""))
        return Record(expense: expense, version: version, seq: version, deleted: deleted)
    }

    /// Synced at version 1, then `change` is pushed as mutation 1 and its answer is lost: a new session finds
    /// it consumed, and the daemon no longer knows what became of it.
    private func cutAfter(_ change: (LocalLedger) throws -> Void) throws -> (LocalLedger, PendingMutation) {
        let ledger = LocalLedger(store: InMemoryExpenseStore())
        try ledger.beginSession(HelloResult(protocolVersion: 1, server: "s", ledger: "test", currency: .usd, cursor: 0, lastMutationId: 0),
                                remote: "test")
        try ledger.apply(pulled: [try record(version: 1)], cursor: 1)
        try change(ledger)
        let sent = try #require(try ledger.nextBatch().first)
        try ledger.beginSession(HelloResult(protocolVersion: 1, server: "s", ledger: "test", currency: .usd, cursor: 0, lastMutationId: 1),
                                remote: "test")
        let asked = try #require(try ledger.unanswered(after: 0).first)
        #expect(asked.mutationId == 1)
        return (ledger, sent)
    }

    @Test func aSecondChangeIsNotRebasedOverSomeoneElsesChangeToItsField() throws {
        let (ledger, _) = try cutAfter { try $0.edit(try $0.find(id.uuidString), changes: ExpenseDraft(category: "travel")) }
        try ledger.edit(try ledger.find(id.uuidString), changes: ExpenseDraft(amount: 1100))
        let asked = try ledger.unanswered(after: 0)
        _ = try ledger.apply(results: [MutationResult(mutationId: 1, status: .duplicate(original: nil))], for: asked)
        // Someone else changed the amount after the category was applied.
        try ledger.apply(pulled: [try record(amount: 1200, category: "travel", version: 3)], cursor: 3)
        try ledger.settleUnknown()
        let queue = try ledger.store.pendingMutations(limit: 10)
        #expect(queue.count == 1)
        #expect(queue.first?.fields == ExpenseDraft(amount: 1100, currency: "USD", split: "", charged: 0, parts: ""))
        #expect(queue.first?.baseVersion == 1, "based on what the person saw, not on a version holding the other amount")
    }

    @Test func aSecondChangeOfTheSameFieldFollowsTheFirst() throws {
        let (ledger, _) = try cutAfter { try $0.edit(try $0.find(id.uuidString), changes: ExpenseDraft(amount: 1100)) }
        try ledger.edit(try ledger.find(id.uuidString), changes: ExpenseDraft(amount: 1150))
        _ = try ledger.apply(results: [MutationResult(mutationId: 1, status: .duplicate(original: nil))], for: try ledger.unanswered(after: 0))
        try ledger.apply(pulled: [try record(amount: 1100, version: 2)], cursor: 2)
        try ledger.settleUnknown()
        let queue = try ledger.store.pendingMutations(limit: 10)
        #expect(queue.map(\.baseVersion) == [2] && queue.first?.fields == ExpenseDraft(amount: 1150, currency: "USD", split: "", charged: 0, parts: ""))
    }

    @Test func aDeleteAfterACutEditIsWhatGoesOutAgain() throws {
        let (ledger, _) = try cutAfter { try $0.edit(try $0.find(id.uuidString), changes: ExpenseDraft(note: "stale")) }
        try ledger.delete(try ledger.find(id.uuidString))
        _ = try ledger.apply(results: [MutationResult(mutationId: 1, status: .duplicate(original: nil))], for: try ledger.unanswered(after: 0))
        try ledger.apply(pulled: [try record(version: 2, deleted: true)], cursor: 2)
        try ledger.settleUnknown()
        let queue = try ledger.store.pendingMutations(limit: 10)
        #expect(queue.count == 1 && queue.first?.type == .delete && queue.first?.state == .unsent)
    }

    /// With the original outcome the answer is known: applied at the next version, the second change follows it.
    @Test func anOriginalAppliedOutcomeSettlesTheEntry() throws {
        let (ledger, sent) = try cutAfter { try $0.edit(try $0.find(id.uuidString), changes: ExpenseDraft(category: "travel")) }
        try ledger.edit(try ledger.find(id.uuidString), changes: ExpenseDraft(amount: 1100))
        let outcome = try ledger.apply(results: [MutationResult(mutationId: 1, status: .duplicate(original: .applied(version: 2, seq: 2)))],
                                       for: try ledger.unanswered(after: 0))
        #expect(outcome.applied == 1)
        let queue = try ledger.store.pendingMutations(limit: 10)
        #expect(queue.count == 1 && queue.first?.position != sent.position)
        #expect(queue.first?.baseVersion == 2 && queue.first?.fields == ExpenseDraft(amount: 1100, currency: "USD", split: "", charged: 0, parts: ""))
    }
}
