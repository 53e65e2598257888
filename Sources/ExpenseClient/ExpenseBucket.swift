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
    /// one per ``ExpenseCore/TotalsKey``: the category by its bytes, as SQLite's `GROUP BY` groups it. Each part
    /// of an expense counts in its own category, the remainder in the expense's
    /// (``ExpenseCore/Expense/forEachCategoryShare(_:)``); only the categories `category` names, when given.
    /// - Throws: `ValidationError.amountOverflow`.
    package static func summing<S: Sequence<Expense>>(_ expenses: S, category: String? = nil) throws -> [ExpenseBucket] {
        var buckets: [TotalsKey: ExpenseBucket] = [:]
        for expense in expenses {
            try expense.forEachCategoryShare { (name, amount, count) throws(ValidationError) in
                if let category, !ExactText.same(category, name) { return }
                let key = TotalsKey(day: expense.date, category: name, currency: expense.currency)
                var bucket = buckets[key] ?? ExpenseBucket(date: expense.date, category: name,
                                                           currency: expense.currency, amount: 0, count: 0)
                let (sum, overflow) = bucket.amount.addingReportingOverflow(amount)
                guard !overflow else { throw ValidationError.amountOverflow }
                bucket.amount = sum
                bucket.count += count
                buckets[key] = bucket
            }
        }
        return Array(buckets.values)
    }

    /// `buckets` with `more` added, bucket by bucket (one per ``ExpenseCore/TotalsKey``), with overflow checks.
    /// - Throws: `ValidationError.amountOverflow`.
    package static func merging(_ buckets: [ExpenseBucket], _ more: [ExpenseBucket]) throws -> [ExpenseBucket] {
        guard !more.isEmpty else { return buckets }
        var merged: [TotalsKey: ExpenseBucket] = [:]
        for bucket in buckets + more {
            let key = TotalsKey(day: bucket.date, category: bucket.category, currency: bucket.currency)
            guard var existing = merged[key] else { merged[key] = bucket; continue }
            let (sum, overflow) = existing.amount.addingReportingOverflow(bucket.amount)
            guard !overflow else { throw ValidationError.amountOverflow }
            existing.amount = sum
            existing.count += bucket.count
            merged[key] = existing
        }
        return Array(merged.values)
    }
}
