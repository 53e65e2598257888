import ExpenseCore

extension LocalLedger {
    /// The statistics of the live local expenses, from the store's per-day buckets, through the core's
    /// ``ExpenseCore/PeriodStatisticsBuilder`` (the daemon's `stats` runs the same code over its own totals).
    /// - Throws: ``LedgerLimitError/summaryOverflow(currency:)`` naming the currency, ``StoreError``.
    package func statistics(_ query: StatisticsQuery) throws -> PeriodStatistics {
        var builder = PeriodStatisticsBuilder(query: query)
        do {
            for bucket in try store.buckets(matching: ExpenseFilter(from: query.from, to: query.to, category: nil)) {
                try builder.add(amount: bucket.amount, count: bucket.count, currency: bucket.currency,
                                category: bucket.category, date: bucket.date)
            }
            return try builder.build()
        } catch let error as StatisticsError {
            guard case .amountOverflow(let currency) = error else { throw error }
            throw LedgerLimitError.summaryOverflow(currency: currency)
        }
    }
}
