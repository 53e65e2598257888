import TestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing

/// Two rules every store and the local merge share: text is the same only when its bytes are (Protocol.md §2),
/// and a pending change carries the whole (amount, currency) pair (Protocol.md §7.4).
extension ExpenseStoreContractTests {
    private static let composed = "caf\u{E9}", decomposed = "cafe\u{301}"

    private static func bytes(_ text: String?) -> [UInt8] { Array((text ?? "").utf8) }

    /// A ledger holding one expense pulled from the daemon at version 1, plus an unrelated queued add so the
    /// store is not "settled" and pulled records go through the merge.
    private func pulledOnce(_ kind: CacheStoreKind, in directory: TemporaryDirectory,
                            _ draft: ExpenseDraft) throws -> (LocalLedger, Expense) {
        let ledger = LocalLedger(store: try kind.open(in: directory))
        var complete = draft
        complete.id = .value(UUID())
        let expense = try ExpenseValidator.validate(complete)
        try ledger.apply(pulled: [Record(expense: expense, version: 1, seq: 1, deleted: false)], cursor: 1)
        try ledger.add(ExpenseDraft(amount: 1, currency: "USD", category: "other", date: "2026-01-01", note: ""))
        return (ledger, expense)
    }

    private func record(_ expense: Expense, _ changes: ExpenseDraft, version: Int64) throws -> Record {
        Record(expense: try ExpenseValidator.validate(expense.draft.merging(changes)), version: version,
               seq: version, deleted: false)
    }

    @Test(arguments: CacheStoreKind.allCases)
    func anEditToACanonicallyEquivalentNoteIsQueued(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let (ledger, expense) = try pulledOnce(kind, in: directory, ExpenseDraft(
            amount: 100, currency: "USD", category: "food", date: "2026-01-01", note: Self.composed))
        let before = try ledger.pendingCount()
        let edited = try ledger.edit(try ledger.find(expense.idString), changes: ExpenseDraft(note: Self.decomposed))
        #expect(Self.bytes(edited.note) == Self.bytes(Self.decomposed))
        #expect(try ledger.pendingCount() == before + 1)
        let entry = try #require(try ledger.store.pendingMutations(limit: 10).first { $0.id == expense.id })
        #expect(Self.bytes(entry.fields.note) == Self.bytes(Self.decomposed))
        #expect(Self.bytes(try ledger.store.record(id: expense.id)?.expense.note) == Self.bytes(Self.decomposed))
    }

    @Test(arguments: CacheStoreKind.allCases)
    func aPulledRecordDifferingOnlyInNormalisationReplacesTheLocalView(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let (ledger, expense) = try pulledOnce(kind, in: directory, ExpenseDraft(
            amount: 100, currency: "USD", category: Self.composed, date: "2026-01-01", note: Self.composed))
        // The same version again (a pull from 0 after the daemon's history was replaced), other bytes.
        let pulled = try record(expense, ExpenseDraft(category: Self.decomposed, note: Self.decomposed), version: 1)
        try ledger.apply(pulled: [pulled], cursor: 1)
        let local = try #require(try ledger.store.record(id: expense.id)).expense
        #expect(Self.bytes(local.note) == Self.bytes(Self.decomposed))
        #expect(Self.bytes(local.category) == Self.bytes(Self.decomposed))
    }

    /// Every store filters and groups categories by bytes, as SQLite does.
    @Test(arguments: CacheStoreKind.allCases)
    func categoriesAreFilteredAndGroupedByTheirBytes(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        for (category, amount) in [(Self.composed, Int64(100)), (Self.decomposed, 20), (Self.composed, 3)] {
            try ledger.add(ExpenseDraft(amount: amount, currency: "USD", category: category, date: "2026-01-01", note: ""))
        }
        #expect(try ledger.list(ExpenseFilter(category: Self.composed)).map(\.amount).sorted() == [3, 100])
        #expect(try ledger.list(ExpenseFilter(category: Self.decomposed)).map(\.amount) == [20])
        #expect(try ledger.summary(SummaryQuery(category: Self.decomposed)).totals.map(\.amount) == [20])
        let groups = try ledger.summary(SummaryQuery(groupBy: .category)).groups
        #expect(groups.map { Self.bytes($0.key) }.sorted { $0.lexicographicallyPrecedes($1) }
                == [Self.bytes(Self.decomposed), Self.bytes(Self.composed)])
        #expect(groups.map(\.amount).sorted() == [20, 103])
    }

    /// A currency edit (same digits) waiting locally while the daemon's amount changes: the local view keeps the
    /// person's whole pair, never the daemon's digits with the local currency.
    @Test(arguments: CacheStoreKind.allCases)
    func aPendingMoneyChangeKeepsItsWholePairOverPulledMoney(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let (ledger, expense) = try pulledOnce(kind, in: directory, ExpenseDraft(
            amount: 500, currency: "EUR", category: "food", date: "2026-01-01", note: ""))
        try ledger.edit(try ledger.find(expense.idString), changes: ExpenseDraft(amount: 500, currency: "JPY"))
        let entry = try #require(try ledger.store.pendingMutations(limit: 10).first { $0.id == expense.id })
        #expect(entry.fields == ExpenseDraft(amount: 500, currency: "JPY", split: "", charged: 0, parts: ""))
        try ledger.apply(pulled: [try record(expense, ExpenseDraft(amount: 750), version: 2)], cursor: 2)
        let local = try #require(try ledger.store.record(id: expense.id)).expense
        #expect(local.amount == 500 && local.currency.code == "JPY")

        // The other way round: a pending amount edit over a pulled currency change keeps its own currency.
        let otherDirectory = try TemporaryDirectory()
        let other = try pulledOnce(kind, in: otherDirectory, ExpenseDraft(
            amount: 500, currency: "EUR", category: "food", date: "2026-01-01", note: ""))
        try other.0.edit(try other.0.find(other.1.idString), changes: ExpenseDraft(amount: 800))
        try other.0.apply(pulled: [try record(other.1, ExpenseDraft(currency: "JPY"), version: 2)], cursor: 2)
        let mine = try #require(try other.0.store.record(id: other.1.id)).expense
        #expect(mine.amount == 800 && mine.currency.code == "EUR")
    }

    /// A pending change of another field shows the daemon's money, whole.
    @Test(arguments: CacheStoreKind.allCases)
    func aPendingCategoryChangeShowsPulledMoneyWhole(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let (ledger, expense) = try pulledOnce(kind, in: directory, ExpenseDraft(
            amount: 500, currency: "EUR", category: "food", date: "2026-01-01", note: ""))
        try ledger.edit(try ledger.find(expense.idString), changes: ExpenseDraft(category: "travel"))
        let entry = try #require(try ledger.store.pendingMutations(limit: 10).first { $0.id == expense.id })
        #expect(entry.fields == ExpenseDraft(category: "travel"))
        try ledger.apply(pulled: [try record(expense, ExpenseDraft(amount: 750, currency: "JPY"), version: 2)], cursor: 2)
        let local = try #require(try ledger.store.record(id: expense.id)).expense
        #expect(local.amount == 750 && local.currency.code == "JPY" && local.category == "travel")
    }
}
