import ExpenseCore
import Foundation
import Testing

/// An expense's amount charged in the ledger's currency (`charged`, `--paid`): its validation, its place in
/// money's conflict group, and the conversion rule that it overrides the rate into the ledger's currency only.
@Suite struct ChargedAmountTests {
    static let eur = TestCurrency.eur, usd = TestCurrency.usd, chf = TestCurrency.named("CHF")

    static func day(_ text: String) throws -> CalendarDay { try #require(CalendarDay(text)) }

    /// 120.00 CHF of food on 2026-03-04, charged as `charged` (nil: none).
    static func expense(charged: Int64?) throws -> Expense {
        try ExpenseValidator.validate(ExpenseDraft(id: "3f2504e0-4f89-41d3-9a0c-0305e82c3301", amount: 12_000, currency: "CHF",
                                                   category: "food", date: "2026-03-04", note: "", charged: charged))
    }

    /// CHF→EUR 0.95 and EUR→USD 1.05 from 2026-01-01, in a EUR ledger.
    static func table() throws -> RateTable {
        RateTable([ExchangeRate(date: try day("2026-01-01"), from: chf, to: eur, rate: try Rate("0.95")),
                   ExchangeRate(date: try day("2026-01-01"), from: eur, to: usd, rate: try Rate("1.05"))], ledgerCurrency: eur)
    }

    @Test("charged is 1 … 2^53−1 minor units, or 0 and absent for none; anything else is invalid_charged", arguments: [
        (Int64(1), true), (12_840, true), (ExpenseRules.maximumAmount, true), (ExpenseRules.maximumAmount + 1, false), (-1, false),
    ])
    func validation(value: Int64, valid: Bool) throws {
        if valid {
            #expect(try Self.expense(charged: value).charged == value)
        } else {
            #expect(throws: ValidationError.self) { try Self.expense(charged: value) }
            do { _ = try Self.expense(charged: value) } catch let error as ValidationError {
                #expect(error.code == "invalid_charged" && error.field == .charged, "\(error)")
            }
        }
    }

    @Test("0 and absent are none: the draft of an expense without one gives 0, which validates back to none")
    func noneIsZero() throws {
        #expect(try Self.expense(charged: 0).charged == nil)
        let none = try Self.expense(charged: nil)
        #expect(none.charged == nil && none.draft.charged == 0)
        #expect(try ExpenseValidator.validate(none.draft) == none)
        let some = try Self.expense(charged: 12_840)
        #expect(try ExpenseValidator.validate(some.draft) == some && some != none)
    }

    @Test("charged is money: one conflict group with amount, currency and split; same, copy and matches by its value")
    func fieldAnswers() throws {
        #expect(ExpenseField.charged.conflictGroup == [.amount, .currency, .split, .charged, .parts])
        #expect(ExpenseField.charged.conflictGroupName == "money" && ExpenseField.charged.conflictGroupIndex == 0)
        #expect(ExpenseField.amount.conflictGroup.contains(.charged))
        let none = try Self.expense(charged: nil), some = try Self.expense(charged: 12_840)
        #expect(ExpenseField.charged.same(some, some) && !ExpenseField.charged.same(none, some))
        var draft = ExpenseDraft()
        ExpenseField.charged.copy(from: some, to: &draft)
        #expect(draft.charged == 12_840)
        #expect(ExpenseField.charged.matches(draft, some) == true && ExpenseField.charged.matches(draft, none) == false)
        #expect(ExpenseField.charged.matches(ExpenseDraft(), some) == nil)
        #expect(ExpenseField.charged.text(of: some) == "120.00 CHF charged 12840")
        #expect(ExpenseField.amount.text(of: some, ledgerCurrency: Self.eur) == "120.00 CHF charged 128.40 EUR")
        #expect(ExpenseField.amount.text(of: none, ledgerCurrency: Self.eur) == "120.00 CHF")
    }

    @Test("into the ledger's currency the amount charged is the converted amount exactly, with a rate, without one, on any day")
    func chargedIntoTheLedgerCurrency() throws {
        let some = try Self.expense(charged: 12_840)
        var converter = CurrencyConverter(table: try Self.table(), target: Self.eur, valuation: .then)
        #expect(converter.convert(some)?.amount == 12_840 && converter.convert(some)?.currency == Self.eur)
        var early = CurrencyConverter(table: try Self.table(), target: Self.eur, valuation: .on(try Self.day("2025-01-01")))
        #expect(early.convert(some)?.amount == 12_840 && early.unconverted.isEmpty)
        var empty = CurrencyConverter(table: RateTable([], ledgerCurrency: Self.eur), target: Self.eur, valuation: .then)
        #expect(empty.convert(some)?.amount == 12_840 && empty.unconvertedCount == 0)
        // Without it, the rate: 120 × 0.95.
        #expect(converter.convert(try Self.expense(charged: nil))?.amount == 11_400)
        // The converted expense carries no amount charged of its own.
        #expect(converter.convert(some)?.charged == nil)
    }

    @Test("a member's part of a shared expense has their part of the amount charged, divided as a converted amount is")
    func partOfTheAmountCharged() throws {
        let first = "10000000-0000-4000-8000-000000000001", second = "20000000-0000-4000-8000-000000000002"
        let shared = try ExpenseValidator.validate(ExpenseDraft(id: "3f2504e0-4f89-41d3-9a0c-0305e82c3301", amount: 12_000, currency: "CHF",
                                                                category: "food", date: "2026-03-04", note: "", paidBy: first,
                                                                split: "equal:\(first),\(second)", charged: 12_841))
        let members = [first, second].compactMap(UUID.init(uuidString:))
        let parts = members.compactMap { shared.part(of: $0) }
        #expect(members.count == 2 && parts.count == 2)
        #expect(parts.map(\.amount) == [6_000, 6_000])
        #expect(parts.compactMap(\.charged).reduce(0, +) == 12_841 && parts.allSatisfy { [6_420, 6_421].contains($0.charged ?? 0) })
        var converter = CurrencyConverter(table: RateTable([], ledgerCurrency: Self.eur), target: Self.eur, valuation: .then)
        #expect(parts.compactMap { converter.convert($0)?.amount }.reduce(0, +) == 12_841)
    }

    @Test("into any other currency the amount charged plays no part: the rates convert the original amount")
    func chargedIgnoredIntoAnotherCurrency() throws {
        let some = try Self.expense(charged: 12_840)
        var usd = CurrencyConverter(table: try Self.table(), target: Self.usd, valuation: .then)
        // 120 CHF × 0.95 × 1.05 = 119.70 USD, as without it.
        #expect(usd.convert(some)?.amount == 11_970)
        #expect(usd.convert(try Self.expense(charged: nil))?.amount == 11_970)
        var chf = CurrencyConverter(table: try Self.table(), target: Self.chf, valuation: .then)
        #expect(chf.convert(some)?.amount == 12_000)
        // A ledger in USD: EUR is just another currency, and the rates convert.
        var other = CurrencyConverter(table: RateTable([], ledgerCurrency: Self.usd), target: Self.eur, valuation: .then)
        #expect(other.convert(some) == nil && other.unconvertedCount == 1)
    }
}
