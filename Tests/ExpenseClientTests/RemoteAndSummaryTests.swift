@testable import ExpenseClient
import ExpenseCore
import Foundation
import Testing

/// A cache synced with one server/ledger refuses another, and its queue stays as it was.
@Test func anotherLedgerIsRefused() throws {
    let ledger = LocalLedger(store: InMemoryExpenseStore())
    try ledger.beginSession(lastMutationId: 0, remote: "127.0.0.1:1/a")
    try ledger.beginSession(lastMutationId: 0, remote: "127.0.0.1:1/a")
    #expect(throws: SyncError.otherLedger(synced: "127.0.0.1:1/a", asked: "127.0.0.1:2/b")) {
        try ledger.beginSession(lastMutationId: 0, remote: "127.0.0.1:2/b")
    }
}

/// Summaries from SQL buckets equal the aggregator over every expense, on each store; an overflowing bucket throws.
@Test(arguments: [false, true]) func bucketSummaryEqualsRecomputation(sqlite: Bool) throws {
    let store: any ExpenseStore = sqlite ? try SQLiteExpenseStore(path: ":memory:") : InMemoryExpenseStore()
    var generator = SystemRandomNumberGenerator()
    let categories = ["food", "rent", "travel"]
    try store.write { transaction in
        for _ in 0..<500 {
            let draft = ExpenseDraft(id: UUID().uuidString.lowercased(), amount: Int64.random(in: 1...50_000, using: &generator),
                                     currency: ["EUR", "USD"].randomElement(using: &generator), category: categories.randomElement(using: &generator),
                                     date: "2024-0\(Int.random(in: 1...9, using: &generator))-1\(Int.random(in: 0...9, using: &generator))", note: "")
            try transaction.putRecord(LocalRecord(expense: try ExpenseValidator.validate(draft)))
        }
    }
    let ledger = LocalLedger(store: store)
    for grouping in [SummaryGrouping.none, .category, .month] {
        let query = SummaryQuery(groupBy: grouping)
        #expect(try ledger.summary(query) == (try Aggregator.summarize(try store.expenses(matching: ExpenseFilter()), query: query)))
    }
    try store.write { transaction in
        for _ in 0..<2 {
            let draft = ExpenseDraft(id: UUID().uuidString.lowercased(), amount: ExpenseRules.maximumAmount, currency: "EUR",
                                     category: "huge", date: "2024-01-01", note: "")
            try transaction.putRecord(LocalRecord(expense: try ExpenseValidator.validate(draft)))
        }
        for _ in 0..<1100 {
            let draft = ExpenseDraft(id: UUID().uuidString.lowercased(), amount: ExpenseRules.maximumAmount, currency: "EUR",
                                     category: "huge", date: "2024-01-01", note: "")
            try transaction.putRecord(LocalRecord(expense: try ExpenseValidator.validate(draft)))
        }
    }
    #expect(throws: ValidationError.amountOverflow) { try ledger.summary(SummaryQuery()) }
}
