import TestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import Foundation
import Testing

/// An `applied` answer's record (Protocol.md §5.2) is the client's server copy at once, before any pull: what
/// the daemon merged into it is known then. An answer without one — an older daemon's, a `duplicate`'s — is
/// settled by replaying the change onto the copy held, as before.
@Suite struct AppliedRecordSyncTests {
    /// Pushes `client`'s queue on one session and pulls nothing.
    private static func pushOnly(_ client: TestClient, to daemon: TestDaemon) async throws -> SyncEngine.Report {
        let engine = client.engine(daemon)
        return try await onOwnThread { [engine] in
            let connection = try engine.connect()
            defer { connection.close() }
            var report = SyncEngine.Report()
            try engine.push(on: connection, report: &report)
            return report
        }
    }

    @Test func anEditMergedOntoAnotherClientsChangeIsTheServerCopyBeforeAnyPull() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann"), bob = try TestClient("bob")
        let expense = try ann.add(1000, "food", note: "dinner")
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        try ann.edit(expense.id, ExpenseDraft(amount: 1100))
        try await ann.sync(daemon)
        // Bob changes the note on version 1, not knowing of Ann's amount: the daemon merges the two.
        try bob.edit(expense.id, ExpenseDraft(note: "with Ann"))
        let cursor = try bob.ledger.pullCursor()
        #expect(try await Self.pushOnly(bob, to: daemon).pushed == 1)
        #expect(try bob.ledger.pullCursor() == cursor, "nothing was pulled")
        let copy = try #require(try bob.ledger.serverCopy(expense.id))
        #expect(copy.expense.amount == 1100 && copy.expense.note == "with Ann" && copy.version == 3)
        #expect(copy == (try await daemon.records())[expense.id])
        // The view is the copy (nothing is queued): Ann's amount shows before Bob pulls.
        #expect(try bob.live()[expense.id]?.amount == 1100)
        #expect(try bob.ledger.pendingCount() == 0)
        await daemon.stop()
    }

    @Test func aBudgetEditMergedOntoAnotherMachinesChangeIsTheServerCopyBeforeAnyPull() async throws {
        let daemon = try TestDaemon()
        let laptop = try TestClient("laptop", persistent: true), phone = try TestClient("phone", persistent: true)
        let phoneData = try LedgerDataCache(store: phone.ledger.store)
        let budget = try BudgetSyncStoryTests.food(30_000)
        try laptop.ledger.put(.budget, id: budget.id, fields: budget.fields)
        try await laptop.sync(daemon)
        try await phone.sync(daemon)
        var rolling = budget, quarterly = budget
        rolling.rollover = .full
        quarterly.period = .quarter
        try laptop.ledger.put(.budget, id: budget.id, fields: rolling.fields)
        try await laptop.sync(daemon)
        try phone.ledger.put(.budget, id: budget.id, fields: quarterly.fields)
        #expect(try await Self.pushOnly(phone, to: daemon).pushed == 1)
        let shown = try #require(try phoneData.record(id: budget.id))
        let merged = try LedgerDataValidator.budget(id: budget.id, fields: shown.fields)
        #expect(merged.rollover == .full && merged.period == .quarter && shown.baseVersion == 3 && !shown.pending)
        await daemon.stop()
    }

    /// Synced at version 1, then the note edited and numbered as mutation 1.
    private static func editedAndSent() throws -> (LocalLedger, [PendingMutation], UUID) {
        let ledger = LocalLedger(store: InMemoryExpenseStore())
        try ledger.beginSession(HelloResult(protocolVersion: 1, server: "s", ledger: "test", currency: .usd, cursor: 0, lastMutationId: 0),
                                remote: "test")
        let id = UUID()
        try ledger.apply(pulled: [try record(id, amount: 1000, note: "", version: 1)], cursor: 1)
        try ledger.edit(try ledger.find(id.uuidString), changes: ExpenseDraft(note: "mine"))
        return (ledger, try ledger.nextBatch(), id)
    }

    private static func record(_ id: UUID, amount: Int64, note: String, version: Int64) throws -> Record {
        let expense = try ExpenseValidator.validate(ExpenseDraft(id: UUIDText.lowercased(id), amount: amount, currency: "USD",
                                                                 category: "food", date: "2026-03-01", note: note))
        return Record(expense: expense, version: version, seq: version, deleted: false)
    }

    /// Without a record (a daemon that does not send it), or with one that is not the change's record, the
    /// copy is the one held with the change on top, at the answer's version.
    @Test(arguments: [false, true])
    func anAnswerWithoutTheRecordIsSettledByReplayingTheChange(otherRecord: Bool) throws {
        let (ledger, batch, id) = try Self.editedAndSent()
        let stranger = try Self.record(UUID(), amount: 5, note: "else", version: 3)
        let answer = MutationResult(mutationId: 1, status: .applied(version: 3, seq: 3), record: otherRecord ? .expense(stranger) : nil)
        #expect(try ledger.apply(results: [answer], for: batch).applied == 1)
        #expect(try ledger.serverCopy(id) == (try Self.record(id, amount: 1000, note: "mine", version: 3)))
        #expect(try ledger.list().first { $0.id == id }?.note == "mine")
        #expect(try ledger.pendingCount() == 0)
    }

    /// With the record, the copy is that record as sent: an amount the replay could not know is there.
    @Test func anAnswersRecordIsStoredAsItIs() throws {
        let (ledger, batch, id) = try Self.editedAndSent()
        let stored = try Self.record(id, amount: 1500, note: "mine", version: 3)
        let answer = MutationResult(mutationId: 1, status: .applied(version: 3, seq: 3), record: .expense(stored))
        #expect(try ledger.apply(results: [answer], for: batch).applied == 1)
        #expect(try ledger.serverCopy(id) == stored)
        #expect(try ledger.list().first { $0.id == id }?.amount == 1500)
    }
}

/// A change of the tags queued while an earlier one is on its way keeps its base when the daemon merged the earlier
/// one with another machine's tags: moved to the applied version, it would replace the merged set with its own.
@Suite struct MergedTagsRebaseTests {
    private static func record(_ id: UUID, tags: [String], version: Int64) throws -> Record {
        let expense = try ExpenseValidator.validate(ExpenseDraft(id: UUIDText.lowercased(id), amount: 1000, currency: "USD",
                                                                 category: "food", date: "2026-03-01", note: "", tags: tags))
        return Record(expense: expense, version: version, seq: version, deleted: false)
    }

    /// Synced at version 1 tagged `a`, the tags edited to `a,b` and numbered as mutation 1, then to `a,b,c` (queued).
    private static func twoEdits() throws -> (LocalLedger, [PendingMutation], UUID) {
        let ledger = LocalLedger(store: InMemoryExpenseStore())
        try ledger.beginSession(HelloResult(protocolVersion: 1, server: "s", ledger: "test", currency: .usd, cursor: 0, lastMutationId: 0),
                                remote: "test")
        let id = UUID()
        try ledger.apply(pulled: [try record(id, tags: ["a"], version: 1)], cursor: 1)
        try ledger.edit(try ledger.find(id.uuidString), changes: ExpenseDraft(tags: ["a", "b"]))
        let batch = try ledger.nextBatch()
        try ledger.edit(try ledger.find(id.uuidString), changes: ExpenseDraft(tags: ["a", "b", "c"]))
        return (ledger, batch, id)
    }

    @Test func aLaterTagChangeKeepsItsBaseWhenTheEarlierOneWasMerged() throws {
        let (ledger, batch, id) = try Self.twoEdits()
        // Another machine added `d` at version 2: the daemon merged the first edit into `a,b,d` at version 3.
        let merged = try Self.record(id, tags: ["a", "b", "d"], version: 3)
        #expect(try ledger.apply(results: [MutationResult(mutationId: 1, status: .applied(version: 3, seq: 3), record: .expense(merged))],
                                 for: batch).applied == 1)
        #expect(try ledger.serverCopy(id) == merged)
        let queued = try ledger.nextBatch()
        #expect(queued.map(\.baseVersion) == [1] && queued.first?.fields.tags == ["a", "b", "c"])
    }

    @Test func aLaterTagChangeMovesToTheAppliedVersionWhenTheEarlierOneWasKeptAsSent() throws {
        let (ledger, batch, id) = try Self.twoEdits()
        let kept = try Self.record(id, tags: ["a", "b"], version: 3)
        #expect(try ledger.apply(results: [MutationResult(mutationId: 1, status: .applied(version: 3, seq: 3), record: .expense(kept))],
                                 for: batch).applied == 1)
        #expect(try ledger.nextBatch().map(\.baseVersion) == [3])
    }
}
