@testable import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing

/// A cache synced with one server/ledger refuses another, and its queue stays as it was.
@Test func anotherLedgerIsRefused() throws {
    let ledger = LocalLedger(store: InMemoryExpenseStore())
    let unidentified = HelloResult(protocolVersion: 1, server: "old", ledger: "a", currency: .usd, cursor: 0, lastMutationId: 0)
    try ledger.beginSession(unidentified, remote: "127.0.0.1:1/a")
    try ledger.beginSession(unidentified, remote: "127.0.0.1:1/a")
    #expect(throws: SyncError.otherLedger(synced: "127.0.0.1:1/a", asked: "127.0.0.1:2/b")) {
        try ledger.beginSession(unidentified, remote: "127.0.0.1:2/b")
    }
    // Bound the old way (by address), the cache takes the ledger id at its next hello to that address; from then on
    // any address serving that id is accepted and another id refused.
    let ledgerId = UUID(), epoch = UUID()
    var identified = unidentified
    identified.identity = LedgerIdentity(ledgerId: ledgerId, epoch: epoch, epochCursor: 0)
    #expect(throws: SyncError.self) { try ledger.beginSession(identified, remote: "localhost:1/a") }
    try ledger.beginSession(identified, remote: "127.0.0.1:1/a")
    try ledger.beginSession(identified, remote: "localhost:9/a")
    #expect(try ledger.store.metaValue(.syncedLedger) == "localhost:9/a")
    var other = identified
    other.identity = LedgerIdentity(ledgerId: UUID(), epoch: epoch, epochCursor: 0)
    #expect(throws: SyncError.self) { try ledger.beginSession(other, remote: "localhost:9/a") }
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
