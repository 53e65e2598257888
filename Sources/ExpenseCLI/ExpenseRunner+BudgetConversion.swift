import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation

/// Budgets seen in one currency (`budget status --in`, `report --in`): each budget's statuses with its limit and
/// spending converted, and the budgets whose limit has no rate.
struct ConvertedBudgets {
    /// Each budget whose limit could be converted, its figures in the converter's target.
    var entries: [BudgetReport.Entry] = []
    /// The budgets whose limit has no rate (or would overflow) on `day`: not shown.
    var unconverted: [(budget: Budget, day: CalendarDay)] = []
}

extension ExpenseRunner {
    /// Each budget's status on `day` in the converter's target (`--in`): the budget counts every expense of its
    /// category (or tag), whatever its currency, each converted (an expense with no rate is left out and counted by the
    /// converter once, however many budgets it falls in), against its limit (and so what it carries) converted
    /// on its period's end, or on `--at DATE`. With `member`, their part of each expense
    /// (``ExpenseCore/Expense/part(of:)``), before it is converted. `--at end` values the expenses on the end of
    /// the budget's period containing `day`.
    static func convertedStatuses(_ budgets: [Budget], on day: CalendarDay, ledger: LocalLedger, member: UUID?,
                                  converter: inout CurrencyConverter) throws -> ConvertedBudgets {
        var result = ConvertedBudgets()
        // One conversion per expense and valuation day: two budgets of one category see the same amounts.
        var seen: [ConversionKey: Expense?] = [:]
        for budget in budgets {
            guard let period = BudgetPeriods(budget).period(containing: day) else { continue }
            let limitDay: CalendarDay
            if case .on(let fixed) = converter.valuation { limitDay = fixed } else { limitDay = period.end }
            guard let limit = budget.converted(into: converter.target, on: limitDay, with: converter.table) else {
                result.unconverted.append((budget, limitDay))
                continue
            }
            // Earlier periods matter only for what they carry.
            let first = budget.rollover == .none ? period.start : budget.start
            // Every category: a part of an expense of another category may be the budget's (BudgetStatus picks).
            var expenses = try ledger.store.expenses(matching: ExpenseFilter(from: first, to: period.end))
            if let member { expenses = expenses.compactMap { $0.part(of: member) } }
            var converted: [Expense] = []
            for expense in expenses {
                let key = ConversionKey(id: expense.id, day: converter.valuationDay(dated: expense.date, periodEnd: period.end))
                if let known = seen[key] {
                    if let known { converted.append(known) }
                    continue
                }
                let amount = converter.convert(expense, periodEnd: period.end)
                seen.updateValue(amount, forKey: key)
                if let amount { converted.append(amount) }
            }
            if let status = try BudgetStatus.compute(limit, on: day, expenses: converted) {
                result.entries.append(BudgetReport.Entry(budget: limit, status: status, source: budget.currency))
            }
        }
        return result
    }

    /// One line per budget whose limit was not converted, for standard output after the converted ones.
    func unconvertedBudgetLines(_ budgets: ConvertedBudgets, into target: Currency) -> [String] {
        budgets.unconverted.map { budget, day in
            "the \(DisplayText.quoted(budget.target.name)) budget in \(budget.currency.code) is not shown: "
                + "no \(budget.currency.code) rate into \(target.code) on or before \(day)"
        }
    }

    /// Says on standard error how many budgets were left out because their limit has no rate.
    func tellUnconvertedBudgets(_ budgets: ConvertedBudgets, into target: Currency) {
        let count = budgets.unconverted.count
        guard count > 0 else { return }
        console.err("Note: \(count) budget\(count == 1 ? "'s limit was" : "s' limits were") not converted into \(target.code) "
                    + "and \(count == 1 ? "is" : "are") not shown (`expense rate set` adds a rate).")
    }
}

/// An expense valued on one day: what one conversion is for.
private struct ConversionKey: Hashable {
    let id: UUID
    let day: CalendarDay
}
