// A budget's limit in another currency (`budget status --in`).

extension Budget {
    /// This budget with every amount of its history converted into `target` with `table` on `day` (each rounded
    /// once, ``RateTable/convert(_:_:on:into:)``), so that its status can be computed from expenses converted into
    /// `target`; `nil` when some amount has no rate on `day` or would overflow. Its ``id`` is then that of a budget
    /// in `target`: the value is for computing, never stored.
    public func converted(into target: Currency, on day: CalendarDay, with table: RateTable) -> Budget? {
        var amounts: [BudgetAmount] = []
        for entry in self.amounts {
            guard case .converted(let amount, _) = table.convert(entry.amount, currency, on: day, into: target) else { return nil }
            amounts.append(BudgetAmount(from: entry.from, amount: amount))
        }
        return Budget(target: self.target, currency: target, period: period, start: start, rollover: rollover, amounts: amounts)
    }
}
