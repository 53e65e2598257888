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

    /// The balances of these records (only those in `currency` when it is given), by the core's one selection
    /// (``ExpenseCore/Balances/init(expenses:transfers:currency:)``). A transfer whose fields do not read as one
    /// (validated when pushed, so only a record changed behind the daemon's back) is left out, as a client leaves
    /// it out of its own balances.
    package func balances(in currency: Currency?) throws(SplitError) -> Balances {
        try Balances(expenses: expenses, transfers: transfers.compactMap { try? LedgerDataValidator.transfer(id: $0.id, fields: $0.fields) },
                     currency: currency)
    }
}
