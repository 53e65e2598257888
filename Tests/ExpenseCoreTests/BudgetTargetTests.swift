import ExpenseCore
import Foundation
import Testing

/// Budgets of a tag beside budgets of a category: what each counts, their ids, and their fields.
@Suite("Budget targets")
struct BudgetTargetTests {
    static let eur = TestCurrency.eur

    static func day(_ text: String) throws -> CalendarDay { try #require(CalendarDay(text)) }

    static func budget(_ target: BudgetTarget, currency: Currency = eur) throws -> Budget {
        let start = try day("2026-03-01")
        return Budget(target: target, currency: currency, period: .month, start: start, rollover: .none,
                      amounts: [BudgetAmount(from: start, amount: 50_000)])
    }

    static func expense(_ amount: Int64, category: String = "food", currency: String = "EUR", date: String = "2026-03-04",
                        tags: [String] = [], parts: String? = nil) throws -> Expense {
        try ExpenseValidator.validate(ExpenseDraft(id: UUID().uuidString, amount: amount, currency: currency, category: category,
                                                   date: date, note: "", tags: tags, parts: parts))
    }

    @Test("a tag budget counts the whole amount of an expense with parts; a category budget only its part")
    func partsAndTags() throws {
        // 84.20 in food, of which 12.30 household and 9.90 pharmacy, on the trip.
        let receipt = try Self.expense(8_420, tags: ["trip"], parts: "1230:household\n990:pharmacy")
        let on = try Self.day("2026-03-10")
        #expect(try BudgetStatus.compute(try Self.budget(.tag("trip")), on: on, expenses: [receipt])?.spent == 8_420)
        #expect(try BudgetStatus.compute(try Self.budget(.category("pharmacy")), on: on, expenses: [receipt])?.spent == 990)
        #expect(try BudgetStatus.compute(try Self.budget(.category("food")), on: on, expenses: [receipt])?.spent == 6_200)
    }

    @Test("a tag budget counts every expense with the tag, whatever its category, and only in its currency and periods")
    func tagSpending() throws {
        let expenses = try [
            Self.expense(1_000, category: "food", tags: ["trip", "work"]),
            Self.expense(2_000, category: "travel", tags: ["trip"]),
            Self.expense(4_000, category: "travel", tags: ["Trip"]),  // another tag: compared as bytes
            Self.expense(8_000, category: "travel"),  // no tag
            Self.expense(16_000, category: "travel", currency: "USD", tags: ["trip"]),  // another currency
            Self.expense(32_000, category: "travel", date: "2026-04-02", tags: ["trip"]),  // the next period
        ]
        let status = try #require(try BudgetStatus.compute(try Self.budget(.tag("trip")), on: try Self.day("2026-03-31"), expenses: expenses))
        #expect((status.spent, status.left) == (3_000, 47_000))
        // A category named like the tag is another budget and counts by category only.
        let category = try #require(try BudgetStatus.compute(try Self.budget(.category("trip")), on: try Self.day("2026-03-31"),
                                                             expenses: expenses + [Self.expense(64_000, category: "trip")]))
        #expect(category.spent == 64_000)
    }

    @Test("a tag budget's id never is a category budget's, even of the same text; each is the same on every machine")
    func identity() throws {
        let tag = Budget.id(target: .tag("trip"), currency: Self.eur)
        #expect(tag == Budget.id(target: .tag("trip"), currency: Self.eur))
        #expect(tag != Budget.id(category: "trip", currency: Self.eur))
        #expect(tag != Budget.id(category: "tag", currency: Self.eur))
        #expect(tag != Budget.id(target: .tag("trip"), currency: try #require(Currency(code: "USD"))))
        // A category budget keeps the id it always had.
        #expect(Budget.id(target: .category("food"), currency: Self.eur) == Budget.id(category: "food", currency: Self.eur))
    }

    @Test("a tag budget's fields have tag and no category, and read back to the same budget")
    func fields() throws {
        let budget = try Self.budget(.tag("trip-2026"))
        #expect(budget.fields["tag"] == .text("trip-2026") && budget.fields["category"] == nil)
        #expect(try LedgerDataValidator.budget(id: budget.id, fields: budget.fields) == budget)
        #expect(try LedgerDataValidator.validate(kind: .budget, id: budget.id, fields: budget.fields) == budget.fields)
    }

    @Test("a budget has exactly one of category and tag, the tag checked by the expense's own rule")
    func validation() throws {
        let budget = try Self.budget(.tag("trip"))
        var both = budget.fields
        both["category"] = .text("food")
        #expect(throws: LedgerDataError.invalidValue(field: "tag", detail: "a budget has a category or a tag, not both")) {
            _ = try LedgerDataValidator.budget(id: budget.id, fields: both)
        }
        var neither = budget.fields
        neither["tag"] = nil
        #expect(throws: LedgerDataError.missingField("category")) { _ = try LedgerDataValidator.budget(id: budget.id, fields: neither) }
        for bad in ["", "two words", "a,b", String(repeating: "x", count: ExpenseTags.maximumLength + 1)] {
            var fields = budget.fields
            fields["tag"] = .text(bad)
            let id = Budget.id(target: .tag(bad), currency: Self.eur)
            let problem = try #require(ExpenseTags.problem(with: bad))
            #expect(throws: LedgerDataError.value(.invalidTags(problem), field: "tag")) { _ = try LedgerDataValidator.budget(id: id, fields: fields) }
        }
        // The id of the category budget does not fit a tag budget's fields.
        #expect(throws: LedgerDataError.budgetIdMismatch) {
            _ = try LedgerDataValidator.budget(id: Budget.id(category: "trip", currency: Self.eur), fields: budget.fields)
        }
    }

    @Test("converted, a tag budget keeps its tag")
    func converted() throws {
        let rate = ExchangeRate(date: try Self.day("2026-01-01"), from: Self.eur, to: TestCurrency.usd, rate: try Rate("2"))
        let converted = try #require(try Self.budget(.tag("trip")).converted(into: TestCurrency.usd, on: try Self.day("2026-03-31"),
                                                                             with: RateTable([rate], ledgerCurrency: Self.eur)))
        #expect(converted.target == .tag("trip") && converted.amounts.map(\.amount) == [100_000])
    }
}
