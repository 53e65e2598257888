import ExpenseCore
import Foundation
import Testing

/// One payment in several categories (``ExpenseParts``): the stored text and what a person types, the one
/// validation (`invalid_parts`), the place of parts in money's conflict group, and how they count in totals by
/// category, converted and divided by a split with the exact largest-remainder rule.
@Suite struct ExpensePartsTests {
    static let eur = TestCurrency.eur, usd = TestCurrency.usd
    static let id = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"

    static func day(_ text: String) throws -> CalendarDay { try #require(CalendarDay(text)) }

    /// 84.20 EUR of food on 2026-03-04 with `parts` (their stored text).
    static func receipt(_ parts: String = "1230:household\n990:pharmacy", amount: Int64 = 8_420,
                        paidBy: String? = nil, split: String? = nil) throws -> Expense {
        try ExpenseValidator.validate(ExpenseDraft(id: id, amount: amount, currency: "EUR", category: "food", date: "2026-03-04",
                                                   note: "", paidBy: paidBy, split: split, parts: parts))
    }

    static func code(_ body: () throws -> Void) -> String? {
        do { try body(); return nil } catch let error as ValidationError { return error.code } catch { return "\(error)" }
    }

    @Test("typed parts become the stored text, and back; a ';' that follows no amount stays in its category")
    func texts() throws {
        let typed = try ExpenseParts(typed: ["household=12.30", " pharmacy =9.9"], currency: Self.eur)
        #expect(typed.text == "1230:household\n990:pharmacy")
        #expect(typed.typedText(currency: Self.eur) == "household=12.30;pharmacy=9.90")
        #expect(try ExpenseParts(text: typed.text) == typed)
        #expect(try ExpenseParts(typedList: "household=12.30;pharmacy=9.90", currency: Self.eur) == typed)
        let odd = try ExpenseParts(typed: ["a;b=c=1.00"], currency: Self.eur)
        #expect(odd.parts.map(\.category) == ["a;b=c"])
        #expect(try ExpenseParts(typedList: odd.typedText(currency: Self.eur), currency: Self.eur) == odd)
    }

    @Test("malformed, repeated, own-category or too many parts, and parts that leave nothing, are invalid_parts", arguments: [
        "8420:household", "9000:household", "1230:food", "1230:household\n1:household", "0:household", "01:household",
        "1230: household", "household=12.30", "1230:household\n", ":household", "1:\u{7}bell",
    ])
    func refusals(parts: String) throws {
        #expect(Self.code { _ = try Self.receipt(parts) } == "invalid_parts", "\(parts)")
    }

    @Test("at most 16 parts; the remainder is at least one minor unit")
    func limits() throws {
        let sixteen = (1...16).map { "1:c\($0)" }.joined(separator: "\n")
        #expect(try Self.receipt(sixteen).parts?.parts.count == 16)
        #expect(Self.code { _ = try Self.receipt(sixteen + "\n1:c17") } == "invalid_parts")
        #expect(try Self.receipt("8419:household").parts?.sum == 8_419)
        #expect(Self.code { _ = try ExpenseParts(typed: ["tea=1.234"], currency: Self.eur) } == "invalid_parts")
        let message = try #require({ () -> String? in
            do { _ = try Self.receipt("8000:household\n500:tea"); return nil } catch let error as ValidationError { return error.message }
        }())
        #expect(message.contains("85.00 EUR of 84.20 EUR, 0.81 EUR too much"), "\(message)")
    }

    @Test("parts are money's: one conflict group, compared by text, copied and shown with the amount")
    func moneyGroup() throws {
        #expect(ExpenseField.parts.conflictGroup == ExpenseField.amount.conflictGroup)
        #expect(ExpenseField.parts.conflictGroupName == "money" && ExpenseField.parts.conflictGroupIndex == 0)
        let expense = try Self.receipt()
        #expect(ExpenseField.parts.text(of: expense) == "84.20 EUR parts household=12.30;pharmacy=9.90")
        var draft = ExpenseDraft()
        ExpenseField.parts.copy(from: expense, to: &draft)
        #expect(draft.parts == expense.partsText && ExpenseField.parts.matches(draft, expense) == true)
        #expect(try ExpenseValidator.validate(expense.draft) == expense)
        #expect(!ExpenseField.parts.same(expense, try Self.receipt("1230:household")))
    }

    @Test("totals by category: each part in its category, the remainder and the count in the expense's; grand totals whole")
    func totals() throws {
        let expense = try Self.receipt()
        let summary = try Aggregator.summarize([expense], query: SummaryQuery(groupBy: .category))
        #expect(summary.groups.map { "\($0.key) \($0.amount) \($0.count)" } == ["food 6200 1", "household 1230 0", "pharmacy 990 0"])
        #expect(summary.totals.map(\.amount) == [8_420] && summary.totals.map(\.count) == [1])
        let household = try Aggregator.summarize([expense], query: SummaryQuery(category: "household"))
        #expect(household.totals.map(\.amount) == [1_230])
        let budget = try LedgerDataValidator.budget(id: Budget.id(category: "pharmacy", currency: Self.eur), fields: LedgerDataValidatorTests.budgetFields(category: "pharmacy"))
        #expect(try BudgetStatus.compute(budget, on: try Self.day("2026-03-10"), expenses: [expense])?.spent == 990)
    }

    @Test("converted, the whole amount is converted once and divided across the categories exactly")
    func converted() throws {
        let expense = try Self.receipt()
        let rate = ExchangeRate(date: try Self.day("2026-01-01"), from: Self.eur, to: Self.usd, rate: try Rate("1.0713"))
        var converter = CurrencyConverter(table: RateTable([rate], ledgerCurrency: Self.eur), target: Self.usd, valuation: .then)
        let convertedOrNil = converter.convert(expense)
        let usd = try #require(convertedOrNil)
        let parts = try #require(usd.parts)
        // 84.20 × 1.0713 = 90.20346 → 90.20 USD, divided in proportion to 62.00, 12.30 and 9.90.
        #expect(usd.amount == 9_020 && usd.amount - parts.sum + parts.parts.map(\.amount).reduce(0, +) == 9_020)
        let summary = try Aggregator.summarize([usd], query: SummaryQuery(groupBy: .category))
        #expect(summary.groups.map(\.amount).reduce(0, +) == 9_020)
        #expect(summary.groups.map { "\($0.key) \($0.amount)" } == ["food 6642", "household 1318", "pharmacy 1060"])
    }

    @Test("with a split, each member's share is divided across the categories in proportion, adding up to the share")
    func withSplit() throws {
        let first = "00000000-0000-0000-0000-000000000001", second = "00000000-0000-0000-0000-000000000002"
        let expense = try Self.receipt(paidBy: first, split: "shares:\(first)=2,\(second)=1")
        let members = [first, second].compactMap(UUID.init(uuidString:))
        let shares = members.compactMap { expense.part(of: $0) }
        #expect(shares.map(\.amount) == [5_613, 2_807] || shares.map(\.amount) == [5_614, 2_806])
        for share in shares {
            let summary = try Aggregator.summarize([share], query: SummaryQuery(groupBy: .category))
            #expect(summary.groups.map(\.amount).reduce(0, +) == share.amount)
        }
        // Per category, the members' parts are each within a unit of their exact share, so they add up to the
        // expense's within one unit per member; together exactly the amount.
        let all = try Aggregator.summarize(shares, query: SummaryQuery(groupBy: .category))
        #expect(all.totals.map(\.amount) == [8_420])
        for (group, whole) in zip(all.groups, [6_200, 1_230, 990] as [Int64]) { #expect(abs(group.amount - whole) <= 2, "\(group)") }
    }
}
