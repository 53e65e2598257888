import ExpenseCore
import Foundation
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
