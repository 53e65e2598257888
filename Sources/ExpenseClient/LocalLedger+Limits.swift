import ExpenseCore

extension LocalLedger {
    /// The daemon's per-currency overflow rule, applied locally: after adding `expenses` (and taking `old`
    /// away, an edited expense's previous values) every currency's live total still fits in `Int64`.
    ///
    /// Each amount is at most ``ExpenseCore/ExpenseRules/maximumAmount`` (2^53−1), so with at most 1024 live
    /// expenses after the change no total can overflow and nothing is read; past that the live totals are
    /// summed from the store's buckets.
    /// - Throws: ``LedgerLimitError/totalOverflow(currency:)`` naming the currency.
    func checkTotals(adding expenses: [Expense], removing old: Expense? = nil) throws {
        guard !expenses.isEmpty else { return }
        let safeCount = Int(Int64.max / ExpenseRules.maximumAmount)
        if try store.liveCount() + expenses.count <= safeCount { return }
        var totals: [Currency: Int64] = [:]
        var overflowed: Set<Currency> = []
        do {
            for bucket in try store.buckets(matching: ExpenseFilter()) where !overflowed.contains(bucket.currency) {
                let (sum, overflow) = totals[bucket.currency, default: 0].addingReportingOverflow(bucket.amount)
                if overflow { overflowed.insert(bucket.currency) } else { totals[bucket.currency] = sum }
            }
        } catch ValidationError.amountOverflow {
            // One bucket already overflows (a store the rule did not guard): refuse, naming the currency added to.
            throw LedgerLimitError.totalOverflow(currency: expenses[0].currency)
        }
        if let currency = expenses.first(where: { overflowed.contains($0.currency) })?.currency {
            throw LedgerLimitError.totalOverflow(currency: currency)
        }
        if let old { totals[old.currency, default: 0] -= old.amount }
        for expense in expenses {
            let (sum, overflow) = totals[expense.currency, default: 0].addingReportingOverflow(expense.amount)
            guard !overflow else { throw LedgerLimitError.totalOverflow(currency: expense.currency) }
            totals[expense.currency] = sum
        }
    }
}
