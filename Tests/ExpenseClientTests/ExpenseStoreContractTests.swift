import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing

/// One contract, three stores: proves the store protocol really is swappable.
@Suite struct ExpenseStoreContractTests {
    private func draft(_ amount: Int64, _ category: String, _ date: String, note: String = "") -> ExpenseDraft {
        ExpenseDraft(amount: amount, currency: "USD", category: category, date: date, note: note)
    }

    @Test(arguments: StoreKind.allCases)
    func freshStoreHasAClientIdAndNothingElse(kind: StoreKind) throws {
        let directory = try TemporaryDirectory()
        let store = try kind.open(in: directory)
        #expect(try store.clientId() != nil)
        #expect(try store.liveCount() == 0)
        #expect(try store.pendingCount() == 0)
        #expect(try store.expenses(matching: ExpenseFilter()).isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func addQueuesAPutOfEveryFieldAtVersionZero(kind: StoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        let expense = try ledger.add(draft(1250, " food ", "2026-03-01", note: "lunch\twith Ann"))
        #expect(expense.category == "food")
        #expect(try ledger.store.record(id: expense.id) == LocalRecord(expense: expense))
        let pending = try ledger.store.pendingMutations(limit: 10)
        #expect(pending == [PendingMutation(mutationId: 1, type: .put, id: expense.id, baseVersion: 0,
                                            fields: ExpenseDraft(amount: 1250, currency: "USD", category: "food",
                                                                 date: "2026-03-01", note: "lunch\twith Ann"))])
    }

    @Test(arguments: StoreKind.allCases)
    func editQueuesOnlyChangedFieldsAndDeleteHides(kind: StoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        let expense = try ledger.add(draft(1250, "food", "2026-03-01"))
        let record = try ledger.find(String(expense.idString.prefix(6)).uppercased())
        let edited = try ledger.edit(record, changes: ExpenseDraft(amount: 999, category: "food", note: "x"))
        #expect(edited.amount == 999 && edited.note == "x" && edited.category == "food")
        // No real change: nothing queued.
        try ledger.edit(try ledger.find(expense.idString), changes: ExpenseDraft(note: "x"))
        try ledger.delete(try ledger.find(expense.idString))
        let pending = try ledger.store.pendingMutations(limit: 10)
        #expect(pending.map(\.mutationId) == [1, 2, 3])
        #expect(pending[1].fields == ExpenseDraft(amount: 999, note: "x"))
        #expect(pending[2].type == .delete && pending[2].id == expense.id)
        #expect(try ledger.list().isEmpty)
        #expect(try ledger.store.record(id: expense.id)?.deleted == true)
        #expect(throws: StoreError.unknownId(expense.idString)) { try ledger.find(expense.idString) }
    }

    @Test(arguments: StoreKind.allCases)
    func prefixLookup(kind: StoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        let ids = ["aaaa1111-0000-4000-8000-000000000001", "aaaa2222-0000-4000-8000-000000000002"]
        for id in ids { try ledger.add(ExpenseDraft(id: id, amount: 1, currency: "USD", category: "c", date: "2026-01-01")) }
        #expect(throws: StoreError.ambiguousId("aaaa", matches: ["aaaa1111", "aaaa2222"])) { try ledger.find("aaaa") }
        #expect(try ledger.find("AAAA2").expense.idString == ids[1])
        #expect(throws: StoreError.idPrefixTooShort("aaa")) { try ledger.find("aaa") }
        #expect(throws: StoreError.unknownId("bbbb")) { try ledger.find("bbbb") }
    }

    @Test(arguments: StoreKind.allCases)
    func listingFiltersByDateRangeAndCategoryInDateOrder(kind: StoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        let march = try ledger.add(draft(300, "food", "2026-03-01"))
        let january = try ledger.add(draft(100, "rent", "2026-01-15"))
        let februaryA = try ledger.add(draft(200, "food", "2026-02-10"))
        let februaryB = try ledger.add(draft(201, "food", "2026-02-10"))
        #expect(try ledger.list() == [january, februaryA, februaryB, march])
        let range = ExpenseFilter(from: CalendarDay("2026-01-16"), to: CalendarDay("2026-03-01"))
        #expect(try ledger.list(range) == [februaryA, februaryB, march])
        #expect(try ledger.list(ExpenseFilter(to: CalendarDay("2026-02-10"), category: " food")) == [februaryA, februaryB])
        let summary = try ledger.summary(SummaryQuery(groupBy: .category))
        #expect(summary.totals == [CurrencyTotal(currency: .usd, amount: 801, count: 4)])
        #expect(summary.groups.map(\.key) == ["food", "rent"])
    }

    @Test(arguments: StoreKind.allCases)
    func serverChangesAreNotQueuedAndConsumedMutationsAreDropped(kind: StoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        let mine = try ledger.add(draft(100, "a", "2026-01-01"))
        try ledger.add(draft(200, "b", "2026-01-02"))
        let theirs = try ExpenseValidator.validate(ExpenseDraft(id: UUID().uuidString, amount: 5, currency: "EUR",
                                                                category: "c", date: "2026-01-03"))
        let appended = try ledger.store.commit([StagedChange(record: LocalRecord(expense: theirs, baseVersion: 7), mutation: nil),
                                                StagedChange(record: LocalRecord(expense: mine, baseVersion: 1), mutation: nil)],
                                               meta: [.pullCursor: "42"])
        #expect(appended.isEmpty)
        #expect(try ledger.store.record(id: theirs.id)?.baseVersion == 7)
        #expect(try ledger.store.metaValue(.pullCursor) == "42")
        try ledger.store.removePendingMutations(through: 1)
        #expect(try ledger.store.pendingMutations(limit: 10).map(\.mutationId) == [2])
        // Numbering continues after removal: ids are never reused.
        try ledger.delete(try ledger.find(mine.idString))
        let last = try ledger.store.pendingMutations(limit: 10).last
        #expect(last?.mutationId == 3 && last?.baseVersion == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func metaAndDefaultCurrency(kind: StoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        #expect(try ledger.defaultCurrency() == .usd)
        try ledger.setDefaultCurrency(try #require(Currency(code: "EUR")))
        #expect(try ledger.defaultCurrency().code == "EUR")
        try ledger.store.setMetaValue(nil, for: .currency)
        #expect(try ledger.defaultCurrency() == .usd)
    }

    @Test(arguments: StoreKind.allCases.filter(\.isPersistent))
    func everythingSurvivesReopening(kind: StoreKind) throws {
        let directory = try TemporaryDirectory()
        let (expense, clientId, pending): (Expense, UUID?, [PendingMutation])
        do {
            let ledger = LocalLedger(store: try kind.open(in: directory))
            expense = try ledger.add(draft(4200, "books", "2024-02-29", note: "two\nlines"))
            try ledger.setDefaultCurrency(try #require(Currency(code: "JPY")))
            clientId = try ledger.store.clientId()
            pending = try ledger.store.pendingMutations(limit: 10)
        }
        let reopened = LocalLedger(store: try kind.open(in: directory))
        #expect(try reopened.list() == [expense])
        #expect(try reopened.store.clientId() == clientId)
        #expect(try reopened.store.pendingMutations(limit: 10) == pending)
        #expect(try reopened.defaultCurrency().code == "JPY")
        try reopened.add(draft(1, "x", "2026-01-01"))
        #expect(try reopened.store.pendingMutations(limit: 10).last?.mutationId == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func importWithOneBadRowLeavesTheStoreUntouched(kind: StoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        let existing = try ledger.add(draft(100, "a", "2026-01-01"))
        let csv = "date,amount,currency,category,note\n2026-01-02,1.00,USD,food,\n2026-01-03,12.505,USD,food,bad\n"
        #expect(throws: ImportError.self) { try CSVImporter.drafts(from: csv, defaultCurrency: .usd) }
        #expect(try ledger.list() == [existing])
        #expect(try ledger.store.pendingCount() == 1)
        // And a batch that fails validation inside the ledger stores nothing either.
        #expect(throws: ValidationError.self) {
            try ledger.add([self.draft(1, "ok", "2026-01-05"), self.draft(1, "", "2026-01-06")])
        }
        #expect(try ledger.list() == [existing])
        #expect(try ledger.store.pendingCount() == 1)
    }
}
