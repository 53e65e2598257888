import ExpenseCore
import Foundation
import Testing

private func day(_ text: String) throws -> CalendarDay { try #require(CalendarDay(text)) }

private func budget(_ amount: Int64, rollover: BudgetRollover = .none, start: String = "2026-01-01",
                    period: BudgetPeriodLength = .month) throws -> Budget {
    Budget(category: "food", currency: try #require(Currency(code: "EUR")), period: period, start: try day(start),
           rollover: rollover, amounts: [BudgetAmount(from: try day(start), amount: amount)])
}

@Suite("Budget status")
struct BudgetStatusTests {
    /// January spends 80 of 100, February 150, March 30.
    static func spending() throws -> [Expense] {
        try [makeExpense(80, "EUR", date: "2026-01-10"), makeExpense(100, "EUR", date: "2026-02-01"),
             makeExpense(50, "EUR", date: "2026-02-28"), makeExpense(30, "EUR", date: "2026-03-31"),
             // Never counted: another currency, another category, before the start.
             makeExpense(999, "USD", date: "2026-03-01"), makeExpense(999, "EUR", category: "rent", date: "2026-03-01"),
             makeExpense(999, "EUR", date: "2025-12-31")]
    }

    @Test("rollover none carries nothing", arguments: [("2026-01-15", 0, 80, 20), ("2026-02-15", 0, 150, -50), ("2026-03-15", 0, 30, 70)])
    func none(on: String, carried: Int64, spent: Int64, left: Int64) throws {
        let status = try #require(try BudgetStatus.compute(try budget(100), on: try day(on), expenses: try Self.spending()))
        #expect((status.budgeted, status.carried, status.spent, status.left) == (100, carried, spent, left))
    }

    @Test("rollover positive carries a positive left only", arguments: [("2026-01-15", 0, 20), ("2026-02-15", 20, -30), ("2026-03-15", 0, 70)])
    func positive(on: String, carried: Int64, left: Int64) throws {
        let status = try #require(try BudgetStatus.compute(try budget(100, rollover: .positive), on: try day(on), expenses: try Self.spending()))
        #expect((status.carried, status.left) == (carried, left))
    }

    @Test("rollover full carries a negative left too, chained from the first period",
          arguments: [("2026-01-15", 0, 20), ("2026-02-15", 20, -30), ("2026-03-15", -30, 40), ("2026-04-15", 40, 140)])
    func full(on: String, carried: Int64, left: Int64) throws {
        let status = try #require(try BudgetStatus.compute(try budget(100, rollover: .full), on: try day(on), expenses: try Self.spending()))
        #expect((status.carried, status.left) == (carried, left))
        #expect(status.isOver == (left < 0))
    }

    @Test("a budget changed mid-year keeps the amount of its earlier periods")
    func changedMidYear() throws {
        var changed = try budget(100, rollover: .full)
        changed.amounts = changed.settingAmount(200, from: try day("2026-03-17"))
        #expect(changed.amounts.map(\.from.description) == ["2026-01-01", "2026-03-01"])
        let february = try #require(try BudgetStatus.compute(changed, on: try day("2026-02-10"), expenses: try Self.spending()))
        #expect((february.budgeted, february.left) == (100, -30))
        let march = try #require(try BudgetStatus.compute(changed, on: try day("2026-03-10"), expenses: try Self.spending()))
        #expect((march.budgeted, march.carried, march.left) == (200, -30, 140))
        // Setting it again from an earlier period replaces the later changes from there on.
        changed.amounts = changed.settingAmount(150, from: try day("2026-02-02"))
        #expect(changed.amounts.map(\.amount) == [100, 150])
    }

    @Test("the status period is the one containing the day, with inclusive ends")
    func periodEnds() throws {
        let status = try #require(try BudgetStatus.compute(try budget(100, start: "2025-01-25"), on: try day("2026-01-24"),
                                                          expenses: try Self.spending()))
        #expect((status.period.start.description, status.period.end.description) == ("2025-12-25", "2026-01-24"))
        #expect(status.spent == 80 + 999)  // the 2025-12-31 expense is inside this pay period
        #expect(try BudgetStatus.compute(try budget(100), on: try day("2025-12-31"), expenses: try Self.spending()) == nil)
    }

    @Test("sums past 64 bits are an overflow error, never a wrap")
    func overflow() throws {
        let max = ExpenseRules.maximumAmount
        let many = try (0..<1025).map { _ in try makeExpense(max, "EUR", date: "2026-01-02") }
        #expect(throws: ValidationError.amountOverflow) {
            _ = try BudgetStatus.compute(try budget(100), on: try day("2026-01-31"), expenses: many)
        }
    }
}
