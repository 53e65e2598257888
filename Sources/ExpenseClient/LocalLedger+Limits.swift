import ExpenseCore

extension LocalLedger {
    /// The daemon's per-currency overflow rule, applied locally: after adding `expenses` (and taking `old`
    /// away, an edited expense's previous values) every currency's live total still fits in `Int64`.
    ///
    /// Each currency added to costs one read of the total the store keeps (``ExpenseStore/liveTotal(currency:)``,
    /// ``LiveTotal``), however many expenses the cache holds.
    /// - Throws: ``LedgerLimitError/totalOverflow(currency:)`` naming the currency.
    func checkTotals(adding expenses: [Expense], removing old: Expense? = nil) throws {
        var totals: [Currency: Int64] = [:]
        for expense in expenses {
            var total: Int64
            if let known = totals[expense.currency] {
                total = known
            } else {
                guard let stored = try store.liveTotal(currency: expense.currency) else {
                    throw LedgerLimitError.totalOverflow(currency: expense.currency)
                }
                // Cannot overflow: the stored total includes the old amount.
                total = stored - (old.map { $0.currency == expense.currency ? $0.amount : 0 } ?? 0)
            }
            let (sum, overflow) = total.addingReportingOverflow(expense.amount)
            guard !overflow else { throw LedgerLimitError.totalOverflow(currency: expense.currency) }
            totals[expense.currency] = sum
        }
    }
}
