/// How an expense counts in totals by category, the one rule of every total (summaries, statistics, budgets,
/// the report; the client's buckets and the daemon's live totals): each part (``ExpenseParts``) in its own
/// category, the remainder in the expense's category. The amounts add up to the expense's amount, so grand totals
/// are what they were without parts; the expense counts once, in its own category (a part adds an amount and
/// no count), so counts are too.
extension Expense {
    /// Calls `body` with each category's amount and count: first the expense's own category (the remainder,
    /// count 1), then each part (count 0). An expense without parts is one call, its whole amount.
    @inline(__always)
    public func forEachCategoryShare<Failure: Error>(
        _ body: (_ category: String, _ amount: Int64, _ count: Int64) throws(Failure) -> Void
    ) throws(Failure) {
        guard let parts else { return try body(category, amount, 1) }
        // The parts add up to less than the amount (validated, or divided from it exactly): no overflow.
        try body(category, amount - parts.sum, 1)
        for part in parts.parts { try body(part.category, part.amount, 0) }
    }

    /// The ``TotalsKey`` of each category's share (``forEachCategoryShare(_:)``), with its amount and count.
    public var categoryShares: [(key: TotalsKey, amount: Int64, count: Int64)] {
        var shares: [(key: TotalsKey, amount: Int64, count: Int64)] = []
        forEachCategoryShare { category, amount, count in
            shares.append((TotalsKey(day: date, category: category, currency: currency), amount, count))
        }
        return shares
    }
}
