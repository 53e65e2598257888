import ExpenseCore

/// The daemon's state of one expense: its last field values, its version and its place in the ledger.
/// A tombstone (`deleted`) keeps the last field values.
public struct Record: Hashable, Sendable {
    public var expense: Expense
    /// 1 at creation, +1 for every applied change (a delete included).
    public var version: Int64
    /// The ledger-wide position of the record's latest change.
    public var seq: Int64
    public var deleted: Bool

    public init(expense: Expense, version: Int64, seq: Int64, deleted: Bool) {
        self.expense = expense
        self.version = version
        self.seq = seq
        self.deleted = deleted
    }
}
