import ExpenseCore
import ExpenseProtocol

extension InMemoryLedgerStore {
    /// Every live record's latest state, filtered: the reference the other stores' statements are checked against.
    package func records(_ selection: RecordSelection) throws -> SelectedRecords {
        SelectedRecords(expenses: state.records.values.filter { !$0.deleted && selection.includes($0.expense) }.map(\.expense),
                        data: state.data.values.filter { !$0.deleted && selection.kinds.contains($0.record.kind) }.map(\.record),
                        head: state.head)
    }
}
