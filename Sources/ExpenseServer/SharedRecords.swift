import ExpenseCore
import ExpenseProtocol

/// What balances are computed from (Protocol.md §5.11), as a store reads them in one state of the ledger
/// (``LedgerStore/sharedRecords()``): the shared expenses, the transfers, and the head they reflect.
package struct SharedRecords: Sendable {
    /// Every live expense with both a payer and a split, in any order.
    package var expenses: [Expense]
    /// Every live transfer record, in any order; its fields are read by ``ExpenseCore/LedgerDataValidator``.
    package var transfers: [DataRecord]
    /// The ledger's head in the state these records were read from.
    package var head: Int64

    package init(expenses: [Expense], transfers: [DataRecord], head: Int64) {
        self.expenses = expenses
        self.transfers = transfers
        self.head = head
    }

    /// The records as balance entries (only those in `currency` when it is given), by the core's one reading of
    /// records (``ExpenseCore/BalanceEntry/init(sharedExpense:)``, ``ExpenseCore/Transfer/balanceEntry``). A
    /// transfer whose fields do not read as one (validated when pushed, so only a record changed behind the
    /// daemon's back) is left out, as a client leaves it out of its own balances.
    package func entries(in currency: Currency?) -> [BalanceEntry] {
        var entries: [BalanceEntry] = []
        entries.reserveCapacity(expenses.count + transfers.count)
        for expense in expenses where currency == nil || expense.currency == currency {
            if let entry = BalanceEntry(sharedExpense: expense) { entries.append(entry) }
        }
        for record in transfers {
            guard let transfer = try? LedgerDataValidator.transfer(id: record.id, fields: record.fields),
                  currency == nil || transfer.currency == currency else { continue }
            entries.append(transfer.balanceEntry)
        }
        return entries
    }
}
