import FoundationEssentials

// What a ledger's records put into ``Balances``, said once for the client (its local copy, `expense balances`)
// and the daemon (its own records, `balances --server`), so that both give the same figures from the same records.

extension BalanceEntry {
    /// The entry of a shared expense, one with both a payer and a split: the payer paid the amount, and each member
    /// owes their exact share (``Expense/shares``). `nil` for any other expense: one nobody shares moves no balance.
    public init?(sharedExpense expense: Expense) {
        guard let payer = expense.paidBy, expense.split != nil else { return nil }
        self.init(payer: payer, currency: expense.currency, amount: expense.amount, shares: expense.shares)
    }
}

extension Balances {
    /// The balances of `expenses` (the shared ones count) and `transfers`, only those in `currency` when it is
    /// given: the one selection of records the client and the daemon both make.
    /// - Throws: ``SplitError/amountOverflow`` (and the checks of ``init(_:)``).
    public init(expenses: some Sequence<Expense>, transfers: some Sequence<ExpenseCore.Transfer>, currency: Currency?) throws(SplitError) {
        var entries: [BalanceEntry] = []
        for expense in expenses where currency == nil || expense.currency == currency {
            if let entry = BalanceEntry(sharedExpense: expense) { entries.append(entry) }
        }
        for transfer in transfers where currency == nil || transfer.currency == currency { entries.append(transfer.balanceEntry) }
        try self.init(entries)
    }
}

extension MemberBalance {
    /// A balance computed by another program (the daemon's `balances` answer, read by a client); `nil` unless
    /// `paid` and `share` are at least zero and `net` is exactly `paid - share`, as ``Balances`` makes them.
    public static func checked(member: UUID, paid: Int64, share: Int64, net: Int64) -> MemberBalance? {
        let (difference, overflow) = paid.subtractingReportingOverflow(share)
        guard paid >= 0, share >= 0, !overflow, difference == net else { return nil }
        return MemberBalance(member: member, paid: paid, share: share, net: net)
    }
}
