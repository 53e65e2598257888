import TestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing

/// Imports against every store: new, already present, differing; the local overflow rule; discard.
@Suite struct LocalLedgerImportTests {
    static let csv = "date,amount,currency,category,note\n2026-01-01,4.20,USD,tea,\n2026-01-01,4.20,USD,tea,\n2026-01-02,9,USD,book,\n"

    func rows(_ text: String = Self.csv) throws -> [ImportRow] {
        try CSVImporter.rows(from: text, options: ImportOptions(), defaultCurrency: .usd)
    }

    @Test(arguments: CacheStoreKind.allCases)
    func importingOneFileTwiceAddsItOnce(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        let dry = try ledger.importRows(try rows(), dryRun: true)
        #expect(dry.counts == "3 new, 0 already present, 0 differing")
        #expect(try ledger.list().isEmpty && ledger.pendingCount() == 0)
        #expect(try ledger.importRows(try rows()).counts == "3 new, 0 already present, 0 differing")
        #expect(try ledger.importRows(try rows()).counts == "0 new, 3 already present, 0 differing")
        #expect(try ledger.list().count == 3 && ledger.pendingCount() == 3)

        // An edited expense is a difference, never written over.
        let book = try #require(try ledger.list().first { $0.category == "book" })
        try ledger.edit(try ledger.find(book.idString), changes: ExpenseDraft(note: "mine"))
        let again = try ledger.importRows(try rows())
        #expect(again.counts == "0 new, 2 already present, 1 differing", "\(again.counts)")
        #expect(again.differing.first?.stored.expense.note == "mine")
        #expect(try ledger.find(book.idString).expense.note == "mine")

        // A deleted one is a difference too: an import never undoes a delete, nor a discarded creation.
        try ledger.delete(try ledger.find(book.idString))
        let deleted = try ledger.importRows(try rows())
        #expect(deleted.counts == "0 new, 2 already present, 1 differing", "\(deleted.counts)")
        #expect(deleted.differing.first?.stored.deleted == true)
        let tea = try #require(try ledger.list().first)
        try ledger.discard(tea.idString)
        #expect(try ledger.importRows(try rows()).counts == "0 new, 1 already present, 2 differing")
        #expect(try ledger.list().count == 1)
    }

    @Test(arguments: CacheStoreKind.allCases)
    func localTotalsObeyTheDaemonsOverflowRule(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        let largest = "2026-02-01,90071992547409.91,USD,big,\n"
        // 1024 of the largest amount fit (2^63 − 1024); the 1025th does not.
        #expect(throws: LedgerLimitError.totalOverflow(currency: .usd)) {
            try ledger.importRows(try rows("date,amount,currency,category,note\n" + String(repeating: largest, count: 1025)))
        }
        #expect(try ledger.list().isEmpty)
        try ledger.importRows(try rows("date,amount,currency,category,note\n" + String(repeating: largest, count: 1024)))
        #expect(throws: LedgerLimitError.totalOverflow(currency: .usd)) {
            try ledger.add(ExpenseDraft(amount: 1024, currency: "USD", category: "x", date: "2026-02-02"))
        }
        try ledger.add(ExpenseDraft(amount: 1023, currency: "USD", category: "x", date: "2026-02-02"))
        let small = try ledger.add(ExpenseDraft(amount: 1, currency: "JPY", category: "x", date: "2026-02-02"))
        #expect(throws: LedgerLimitError.totalOverflow(currency: .usd)) {
            try ledger.edit(try ledger.find(small.idString), changes: ExpenseDraft(amount: 2, currency: "USD"))
        }
        // The same digits in another currency move the whole amount into it.
        let yen = try ledger.add(ExpenseDraft(amount: 5, currency: "JPY", category: "x", date: "2026-02-02"))
        #expect(throws: LedgerLimitError.totalOverflow(currency: .usd)) {
            try ledger.edit(try ledger.find(yen.idString), changes: ExpenseDraft(amount: 5, currency: "USD"))
        }
        let summary = try ledger.summary(SummaryQuery(from: nil, to: nil, category: nil, groupBy: .none))
        #expect(summary.totals.first { $0.currency == .usd }?.amount == Int64.max)
        #expect(LedgerLimitError.totalOverflow(currency: .usd).message.contains("USD"))
    }

    /// Records pulled from the daemon are never refused, so a local view can still hold more than fits (two
    /// days of 1000 of the largest amount: each day's bucket fits, their sum does not): the summary says which
    /// currency overflowed.
    @Test(arguments: CacheStoreKind.allCases)
    func aSummaryOverflowNamesItsCurrency(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        try ledger.store.write { transaction in
            for day in ["2024-01-01", "2024-01-02"] {
                for _ in 0..<1000 {
                    let draft = ExpenseDraft(id: UUID().uuidString.lowercased(), amount: ExpenseRules.maximumAmount, currency: "EUR",
                                             category: "huge", date: day, note: "")
                    try transaction.putRecord(LocalRecord(expense: try ExpenseValidator.validate(draft)))
                }
            }
        }
        let eur = try #require(Currency(code: "EUR"))
        #expect(throws: LedgerLimitError.summaryOverflow(currency: eur)) { try ledger.summary(SummaryQuery()) }
        #expect(try ledger.summary(SummaryQuery(from: try ExpenseValidator.validateDate("2024-01-02"))).totals.first?.count == 1000)
    }
}
