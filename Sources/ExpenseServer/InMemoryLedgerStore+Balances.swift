import ExpenseCore
import ExpenseProtocol

extension InMemoryLedgerStore {
    /// Every live record's latest state, filtered: the reference the other stores' statements are checked against.
    package func sharedRecords() throws -> SharedRecords {
        SharedRecords(expenses: state.records.values.filter { !$0.deleted && $0.expense.paidBy != nil && $0.expense.split != nil }
                          .map(\.expense),
                      transfers: state.data.values.filter { !$0.deleted && $0.record.kind == .transfer }.map(\.record),
                      head: state.head)
    }
}
