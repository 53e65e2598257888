import FoundationEssentials

// Balances in one currency (`balances --in`): each shared expense's amount and each transfer converted once, then
// divided as the original was, so that the members' converted nets still add up to exactly zero.

extension Balances {
    /// The balances of `expenses` (the shared ones count) and `transfers` (only those in `currency` when it is
    /// given), every amount converted by `converter` into its target: a shared expense's whole amount is
    /// converted once (its amount charged when it has one and the target is the ledger's currency,
    /// ``CurrencyConverter/amount(of:periodEnd:)``), then divided among its members by its own split (``SplitSpec/convertedShares(amount:expenseId:)``);
    /// a transfer is converted once. A record with no rate is left out entirely (so nets still add up to zero) and
    /// counted by the converter's ``CurrencyConverter/unconverted``; one converted to 0 moves nothing.
    /// - Parameter periodEnd: the valuation day of `--at end` (the end of the range, or today).
    /// - Throws: ``SplitError`` as ``init(_:)``.
    public init(expenses: some Sequence<Expense>, transfers: some Sequence<ExpenseCore.Transfer>, currency: Currency?,
                converting converter: inout CurrencyConverter, periodEnd: CalendarDay) throws(SplitError) {
        let target = converter.target
        var entries: [BalanceEntry] = []
        for expense in expenses where currency == nil || expense.currency == currency {
            guard let payer = expense.paidBy, let split = expense.split,
                  let amount = converter.amount(of: expense, periodEnd: periodEnd),
                  amount > 0 else { continue }
            entries.append(BalanceEntry(payer: payer, currency: target, amount: amount,
                                        shares: try split.convertedShares(amount: amount, expenseId: expense.id)))
        }
        for transfer in transfers where currency == nil || transfer.currency == currency {
            guard let amount = converter.convert(transfer.amount, transfer.currency, dated: transfer.date, periodEnd: periodEnd),
                  amount > 0 else { continue }
            entries.append(.transfer(from: transfer.from, to: transfer.to, amount: amount, currency: target))
        }
        try self.init(entries)
    }
}
