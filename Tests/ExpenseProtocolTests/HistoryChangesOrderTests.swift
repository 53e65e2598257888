import ExpenseCore
import Foundation
import TestSupport
import Testing
@testable import ExpenseProtocol

/// The `changes` object a store keeps, written without sorting when the changes are in byte order or in an
/// expense's field order, against the same object sorted every time.
@Suite struct HistoryChangesOrderTests {
    private static func entry(_ changes: [HistoryEntry.Change]) -> HistoryEntry {
        HistoryEntry(seq: 1, id: UUID(), version: 1, action: .edit, changes: changes, who: nil, clientId: UUID(), time: 0)
    }

    private static func expense(_ amount: Int64, _ currency: Currency, _ category: String, _ date: String, _ note: String) -> Expense {
        Expense(id: UUID(), amount: amount, currency: currency, category: category,
                date: CalendarDay(date) ?? ExpenseRules.earliestDate, note: note)
    }

    @Test func everyExpenseChangeIsWrittenAsTheSortedPathWritesIt() {
        let base = Self.expense(100, .usd, "food", "2026-01-05", "lunch")
        let eur = Currency(code: "EUR") ?? .usd
        var changed: [[HistoryEntry.Change]] = [HistoryEntry.changes(from: nil, to: base)]
        // Every subset of the four fields changed (money, category, date, note).
        for mask in 0..<16 {
            let next = Self.expense(mask & 1 != 0 ? 250 : 100, mask & 1 != 0 ? eur : .usd, mask & 2 != 0 ? "travel" : "food",
                                    mask & 4 != 0 ? "2026-02-28" : "2026-01-05", mask & 8 != 0 ? "café\n\"x\"" : "lunch")
            changed.append(HistoryEntry.changes(from: base, to: next))
        }
        for changes in changed {
            let entry = Self.entry(changes)
            #expect(entry.changesJSON == entry.sortedChangesJSON(), "\(String(decoding: entry.changesJSON, as: UTF8.self))")
        }
    }

    /// A create's changes written straight from the expense (``HistoryEntry/creationChangesJSON(of:)``) are the
    /// bytes the general path writes from the changes, and the sorted reference's, on extremes and seeded values.
    @Test func aCreationIsWrittenAsTheGeneralPathWritesIt() {
        let texts = ["", "food", "caf\u{E9}", "cafe\u{301}", "quote \" and \\ backslash", "tab\tnew\nline\r",
                     "\u{1}\u{1F}\u{7F}", "\u{1F600} \u{200B}", "</script>", String(repeating: "x", count: 300)]
        let currencies = ["USD", "EUR", "JPY", "BHD", "CHF"].compactMap { Currency(code: $0) }
        let dates = ["1900-01-01", "2026-02-28", "9999-12-31"]
        var random = SeededGenerator(seed: 7)
        var expenses: [Expense] = []
        for amount in [Int64(1), 9_007_199_254_740_991] {
            for text in texts { expenses.append(Self.expense(amount, .usd, text, "2026-01-05", text)) }
        }
        for _ in 0..<2_000 {
            expenses.append(Self.expense(Int64.random(in: 1...9_007_199_254_740_991, using: &random),
                                         currencies[Int.random(in: 0..<currencies.count, using: &random)],
                                         texts[Int.random(in: 0..<texts.count, using: &random)],
                                         dates[Int.random(in: 0..<dates.count, using: &random)],
                                         texts[Int.random(in: 0..<texts.count, using: &random)]))
        }
        for expense in expenses {
            let entry = Self.entry(HistoryEntry.changes(from: nil, to: expense))
            #expect(HistoryEntry.creationChangesJSON(of: expense) == entry.changesJSON)
            #expect(HistoryEntry.creationChangesJSON(of: expense) == entry.sortedChangesJSON())
        }
    }

    @Test func anyOtherOrderIsSortedAsBefore() {
        func change(_ field: String) -> HistoryEntry.Change { HistoryEntry.Change(field: field, from: nil, to: .text(field)) }
        let orders: [[String]] = [[], ["note"], ["note", "money", "date", "category"], ["date", "category"],
                                  ["amount", "category", "limit"], ["period", "amount"], ["zeta", "note", "alpha"],
                                  ["money", "extra", "category"], ["b", "a", "b"]]
        for fields in orders {
            let entry = Self.entry(fields.map(change))
            #expect(entry.changesJSON == entry.sortedChangesJSON(), "\(fields)")
        }
        let budget = HistoryEntry.changes(from: ["limit": .integer(5), "category": .text("food")],
                                          to: ["limit": .integer(7), "period": .text("month")])
        let entry = Self.entry(budget)
        #expect(entry.changesJSON == entry.sortedChangesJSON())
        #expect(String(decoding: entry.changesJSON, as: UTF8.self)
            == #"{"category":{"from":"food","to":null},"limit":{"from":5,"to":7},"period":{"from":null,"to":"month"}}"#)
    }
}
