import ExpenseCore

/// The live expenses of one day, category and currency, pre-summed: what a summary needs from the store
/// (``ExpenseStore/buckets(matching:)``), fed to ExpenseCore's `Aggregator` (which checks every addition).
package struct ExpenseBucket: Hashable, Sendable {
    package var date: CalendarDay
    package var category: String
    package var currency: Currency
    /// The sum of the amounts, in minor units.
    package var amount: Int64
    package var count: Int64

    package init(date: CalendarDay, category: String, currency: Currency, amount: Int64, count: Int64) {
        self.date = date
        self.category = category
        self.currency = currency
        self.amount = amount
        self.count = count
    }

    /// Buckets of `expenses`, summed in memory with overflow checks (the stores that hold their state in memory),
    /// one per ``ExpenseCore/TotalsKey``: the category by its bytes, as SQLite's `GROUP BY` groups it.
    /// - Throws: `ValidationError.amountOverflow`.
    package static func summing<S: Sequence<Expense>>(_ expenses: S) throws -> [ExpenseBucket] {
        var buckets: [TotalsKey: ExpenseBucket] = [:]
        for expense in expenses {
            let key = TotalsKey(expense)
            var bucket = buckets[key] ?? ExpenseBucket(date: expense.date, category: expense.category,
                                                       currency: expense.currency, amount: 0, count: 0)
            let (sum, overflow) = bucket.amount.addingReportingOverflow(expense.amount)
            guard !overflow else { throw ValidationError.amountOverflow }
            bucket.amount = sum
            bucket.count += 1
            buckets[key] = bucket
        }
        return Array(buckets.values)
    }
}
