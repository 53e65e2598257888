/// A budget's figures for one period (`expense budget status`, and the stats report's budget against actual):
/// all in minor units of the budget's currency.
public struct BudgetStatus: Hashable, Sendable {
    public var period: BudgetPeriod
    /// The amount for this period (from the budget's history).
    public var budgeted: Int64
    /// What rollover brought from the previous period (0 for the first period, or with rollover `none`).
    public var carried: Int64
    /// The live expenses of the budget's category (or tag) and currency dated in the period.
    public var spent: Int64
    /// `budgeted + carried − spent`; negative when over.
    public var left: Int64

    public init(period: BudgetPeriod, budgeted: Int64, carried: Int64, spent: Int64, left: Int64) {
        self.period = period
        self.budgeted = budgeted
        self.carried = carried
        self.spent = spent
        self.left = left
    }

    /// Whether more was spent than budgeted and carried.
    public var isOver: Bool { left < 0 }

    /// The status of `budget` for the period containing `day`, its carry chained from the budget's first period.
    ///
    /// - Parameters:
    ///   - expenses: live expenses (any category or currency: only the budget's own count, compared as bytes,
    ///     ``ExactText``; a currency is never mixed with another). An expense with parts counts with the part in
    ///     the budget's category, or its remainder when that is its own (``Expense/forEachCategoryShare(_:)``);
    ///     in a tag budget, an expense carrying the tag counts with its whole amount, parts or not.
    /// - Returns: `nil` when `day` is before the budget's start.
    /// - Throws: ``ValidationError/amountOverflow`` when a sum does not fit in 64 bits (through ``Aggregator``).
    public static func compute<S: Sequence>(_ budget: Budget, on day: CalendarDay, expenses: S) throws -> BudgetStatus?
    where S.Element == Expense {
        let periods = BudgetPeriods(budget)
        guard let target = periods.period(containing: day) else { return nil }
        // Spending per period index, in one pass over the expenses.
        var spentByIndex: [Int: Int64] = [:]
        for expense in expenses
        where expense.currency == budget.currency && expense.date >= budget.start && expense.date <= target.end {
            let amount: Int64
            switch budget.target {
            case .category(let budgeted):
                var share: Int64 = 0
                try expense.forEachCategoryShare { category, part, _ in
                    if ExactText.same(category, budgeted) { share = try Aggregator.checkedSum(share, part) }
                }
                amount = share
            case .tag(let tag):
                // A tag is on the whole payment, never on one of its parts: the whole amount counts.
                amount = ExpenseTags.contains(expense.tags, tag) ? expense.amount : 0
            }
            guard amount != 0, let index = periods.period(containing: expense.date)?.index else { continue }
            spentByIndex[index] = try Aggregator.checkedSum(spentByIndex[index] ?? 0, amount)
        }
        var carried: Int64 = 0
        var index = 0
        while true {
            guard let period = periods.period(index: index) else { return nil }
            let budgeted = budget.amount(periodEnd: period.end)
            let spent = spentByIndex[index] ?? 0
            // spent ≥ 0, so its negation cannot overflow.
            let left = try Aggregator.checkedSum(try Aggregator.checkedSum(budgeted, carried), -spent)
            if index == target.index {
                return BudgetStatus(period: period, budgeted: budgeted, carried: carried, spent: spent, left: left)
            }
            switch budget.rollover {
            case .none: carried = 0
            case .positive: carried = max(left, 0)
            case .full: carried = left
            }
            index += 1
        }
    }
}
