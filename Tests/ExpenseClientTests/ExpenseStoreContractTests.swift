import TestSupport
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

    @Test(arguments: CacheStoreKind.allCases)
    func freshStoreHasAClientIdAndNothingElse(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let store = try kind.open(in: directory)
        #expect(try store.clientId() != nil)
        #expect(try store.liveCount() == 0)
        #expect(try store.pendingCount() == 0)
        #expect(try store.expenses(matching: ExpenseFilter()).isEmpty)
    }

    @Test(arguments: CacheStoreKind.allCases)
    func addQueuesAPutOfEveryFieldAtVersionZero(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        let expense = try ledger.add(draft(1250, " food ", "2026-03-01", note: "lunch\twith Ann"))
        #expect(expense.category == "food")
        #expect(try ledger.store.record(id: expense.id) == LocalRecord(expense: expense))
        let pending = try ledger.store.pendingMutations(limit: 10)
        #expect(pending.count == 1)
        #expect(pending.first.map { PendingMutation(type: $0.type, id: $0.id, baseVersion: $0.baseVersion, fields: $0.fields) }
                == PendingMutation(type: .put, id: expense.id, baseVersion: 0,
                                   fields: ExpenseDraft(amount: 1250, currency: "USD", category: "food",
                                                        date: "2026-03-01", note: "lunch\twith Ann", paidBy: "", split: "", charged: 0, tags: [], parts: "", source: "")))
        #expect(pending.first?.mutationId == nil && pending.first?.state == .unsent)
    }

    @Test(arguments: CacheStoreKind.allCases)
    func unsentChangesMergeIntoOneEntryAndCreateThenDeleteLeavesNothing(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        let expense = try ledger.add(draft(1250, "food", "2026-03-01"))
        let record = try ledger.find(String(expense.idString.prefix(6)).uppercased())
        let edited = try ledger.edit(record, changes: ExpenseDraft(amount: 999, category: "food", note: "x"))
        #expect(edited.amount == 999 && edited.note == "x" && edited.category == "food")
        try ledger.edit(try ledger.find(expense.idString), changes: ExpenseDraft(note: "x"))
        var pending = try ledger.store.pendingMutations(limit: 10)
        #expect(pending.count == 1)
        #expect(pending.first?.baseVersion == 0)
        #expect(pending.first?.fields == ExpenseDraft(amount: 999, currency: "USD", category: "food", date: "2026-03-01", note: "x",
                                                      paidBy: "", split: "", charged: 0, tags: [], parts: "", source: ""))
        // Deleting an expense the daemon never saw forgets it entirely.
        try ledger.delete(try ledger.find(expense.idString))
        pending = try ledger.store.pendingMutations(limit: 10)
        #expect(pending.isEmpty)
        #expect(try ledger.list().isEmpty)
        #expect(try ledger.store.record(id: expense.id)?.deleted == true)
        #expect(throws: StoreError.unknownId(expense.idString)) { try ledger.find(expense.idString) }
    }

    @Test(arguments: CacheStoreKind.allCases)
    func editsOfASyncedRecordMergeOnItsServerVersionAndDeleteReplacesThem(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        let theirs = try ExpenseValidator.validate(ExpenseDraft(id: UUID().uuidString, amount: 5, currency: "EUR",
                                                                category: "c", date: "2026-01-03"))
        try ledger.apply(pulled: [Record(expense: theirs, version: 7, seq: 3, deleted: false)], cursor: 3)
        #expect(try ledger.store.record(id: theirs.id) == LocalRecord(expense: theirs, baseVersion: 7))
        #expect(try ledger.pullCursor() == 3)
        #expect(try ledger.store.pendingCount() == 0)
        try ledger.edit(try ledger.find(theirs.idString), changes: ExpenseDraft(note: "a"))
        try ledger.edit(try ledger.find(theirs.idString), changes: ExpenseDraft(category: "d"))
        var pending = try ledger.store.pendingMutations(limit: 10)
        #expect(pending.count == 1)
        #expect(pending.first?.baseVersion == 7 && pending.first?.fields == ExpenseDraft(category: "d", note: "a"))
        try ledger.delete(try ledger.find(theirs.idString))
        pending = try ledger.store.pendingMutations(limit: 10)
        #expect(pending.count == 1 && pending.first?.type == .delete && pending.first?.baseVersion == 7)
        // A numbered (sent) entry is never changed: a later change is a new entry on the same base.
        _ = try ledger.nextBatch()
        #expect(try ledger.store.pendingMutations(limit: 10).first?.state == .sent)
        #expect(try ledger.store.pendingMutations(limit: 10).first?.mutationId == 1)
    }

    @Test(arguments: CacheStoreKind.allCases)
    func prefixLookup(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        let ids = ["aaaa1111-0000-4000-8000-000000000001", "aaaa2222-0000-4000-8000-000000000002"]
        for id in ids { try ledger.add(ExpenseDraft(id: id, amount: 1, currency: "USD", category: "c", date: "2026-01-01")) }
        #expect(throws: StoreError.ambiguousId("aaaa", matches: ["aaaa1111", "aaaa2222"])) { try ledger.find("aaaa") }
        #expect(try ledger.find("AAAA2").expense.idString == ids[1])
        #expect(throws: StoreError.idPrefixTooShort("aaa")) { try ledger.find("aaa") }
        #expect(throws: StoreError.unknownId("bbbb")) { try ledger.find("bbbb") }
    }

    @Test(arguments: CacheStoreKind.allCases)
    func listingFiltersByDateRangeAndCategoryInDateOrder(kind: CacheStoreKind) throws {
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

    @Test(arguments: CacheStoreKind.allCases)
    func answersUpdateServerCopiesQueueAndConflicts(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        let a = try ledger.add(draft(100, "a", "2026-01-01"))
        let b = try ledger.add(draft(200, "b", "2026-01-02"))
        let c = try ledger.add(draft(300, "c", "2026-01-03"))
        let batch = try ledger.nextBatch()
        #expect(batch.map(\.mutationId) == [1, 2, 3])
        let theirs = Record(expense: try ExpenseValidator.validate(ExpenseDraft(id: b.idString, amount: 5, currency: "USD",
                                                                                 category: "x", date: "2026-01-02")),
                            version: 1, seq: 9, deleted: false)
        let outcome = try ledger.apply(results: [
            MutationResult(mutationId: 1, status: .applied(version: 1, seq: 10)),
            MutationResult(mutationId: 2, status: .conflict(current: theirs)),
            MutationResult(mutationId: 3, status: .rejected(MutationRejection(reason: "amount_overflow", field: "amount", message: "too much"))),
        ], for: batch)
        #expect(outcome.applied == 1 && outcome.conflicts == 1 && outcome.rejected == 1)
        #expect(try ledger.store.record(id: a.id)?.baseVersion == 1)
        #expect(try ledger.store.record(id: b.id)?.expense == theirs.expense)
        #expect(try ledger.store.conflicts().map(\.id) == [b.id])
        let queue = try ledger.store.pendingMutations(limit: 10)
        #expect(queue.count == 1 && queue.first?.id == c.id && queue.first?.state == .rejected)
        #expect(queue.first?.rejection?.reason == "amount_overflow")
        #expect(try ledger.list().map(\.id) == [a.id, b.id, c.id])  // the rejected change is kept and shown
        // Resolving with theirs closes the conflict and queues nothing.
        try ledger.resolve(try ledger.conflict(String(b.idString.prefix(5))), .theirs)
        #expect(try ledger.store.conflicts().isEmpty)
        #expect(try ledger.store.pendingCount() == 1)
        // Numbering continues: a new session says the daemon consumed 3.
        try ledger.beginSession(HelloResult(protocolVersion: 1, server: "s", ledger: "y", currency: .usd, cursor: 0, lastMutationId: 3), remote: "x/y")
        try ledger.edit(try ledger.find(a.idString), changes: ExpenseDraft(note: "n"))
        #expect(try ledger.nextBatch().map(\.mutationId) == [4])
    }

    @Test(arguments: CacheStoreKind.allCases)
    func metaAndDefaultCurrency(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        #expect(try ledger.defaultCurrency() == .usd)
        try ledger.setDefaultCurrency(try #require(Currency(code: "EUR")))
        #expect(try ledger.defaultCurrency().code == "EUR")
        try ledger.store.setMetaValue(nil, for: .currency)
        #expect(try ledger.defaultCurrency() == .usd)
    }

    @Test(arguments: CacheStoreKind.allCases.filter(\.isPersistent))
    func everythingSurvivesReopening(kind: CacheStoreKind) throws {
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
        #expect(try reopened.store.pendingMutations(limit: 10).count == 2)
    }

    @Test(arguments: CacheStoreKind.allCases)
    func aBatchWithOneBadDraftLeavesTheStoreUntouched(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        let existing = try ledger.add(draft(100, "a", "2026-01-01"))
        // The ledger's own all-or-nothing: a batch that fails validation inside it stores nothing. (A file with a bad
        // row is refused by the parser before the ledger sees it, CSVTests; an import that fails inside the ledger
        // stores nothing either, LocalLedgerImportTests.localTotalsObeyTheDaemonsOverflowRule.)
        #expect(throws: ValidationError.self) {
            try ledger.add([self.draft(1, "ok", "2026-01-05"), self.draft(1, "", "2026-01-06")])
        }
        #expect(try ledger.list() == [existing])
        #expect(try ledger.store.pendingCount() == 1)
    }
}
