import ExpenseCore
import Foundation

/// One expense as this client knows it: its local field values, the server version they are based on,
/// and whether it is deleted locally.
package struct LocalRecord: Hashable, Sendable {
    /// The local state: the server's record with every pending local change applied.
    package var expense: Expense
    /// The server `version` this local state was based on; 0 when the server has never seen the expense.
    package var baseVersion: Int64
    /// Deleted locally (the delete may still be pending) or a tombstone pulled from the server.
    /// Deleted records are never listed or totalled; they are kept so a later sync can push or merge them.
    package var deleted: Bool

    package init(expense: Expense, baseVersion: Int64 = 0, deleted: Bool = false) {
        self.expense = expense
        self.baseVersion = baseVersion
        self.deleted = deleted
    }

    package var id: UUID { expense.id }
}
