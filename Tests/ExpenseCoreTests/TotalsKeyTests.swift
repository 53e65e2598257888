import ExpenseCore
import Foundation
import Testing

/// The one key of totals: a span, a category by its bytes, a currency.
@Suite struct TotalsKeyTests {
    static let day = CalendarDay(year: 2025, month: 2, day: 28)

    @Test("canonically equivalent or case-different categories are different keys; equal bytes are one key")
    func categoriesAreComparedByTheirBytes() throws {
        let day = try #require(Self.day)
        let key = { (category: String) in TotalsKey(day: day, category: category, currency: .usd) }
        let spellings = ["caf\u{E9}", "cafe\u{301}", "\u{C5}", "\u{212B}", "Food", "food"]
        #expect(Set(spellings.map(key)).count == spellings.count)
        #expect(key("caf\u{E9}") == key(String(decoding: Array("caf\u{E9}".utf8), as: UTF8.self)))
        #expect(Set([key("food"), key("food")]).count == 1)
    }

    @Test("the span and the currency tell keys apart; a day's month key is the month's")
    func spanAndCurrency() throws {
        let day = try #require(Self.day), other = try #require(CalendarDay(year: 2025, month: 2, day: 1))
        let euro = try #require(Currency(code: "EUR"))
        let key = TotalsKey(day: day, category: "food", currency: .usd)
        #expect(key.span == 20250228)
        #expect(key != TotalsKey(day: other, category: "food", currency: .usd))
        #expect(key != TotalsKey(day: day, category: "food", currency: euro))
        #expect(key.month == TotalsKey(span: 202502, category: "food", currency: .usd))
        #expect(key.month == TotalsKey(day: other, category: "food", currency: .usd).month)
        let expense = try ExpenseValidator.validate(ExpenseDraft(id: .value(UUID()), amount: 1, currency: "USD",
                                                                 category: "food", date: "2025-02-28", note: ""))
        #expect(TotalsKey(expense) == key)
    }
}
