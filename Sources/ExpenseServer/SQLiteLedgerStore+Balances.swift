import ExpenseCore
import ExpenseProtocol
import SQLite

extension SQLiteLedgerStore {
    /// The shared expenses (a payer and a split, both stored as non-empty text) and the transfers, each in one
    /// statement that skips every other row without decoding it. The two statements see one state: this store is
    /// the file's only writer (``DataDirectoryLock``) and runs on the ledger's thread, between transactions.
    package func sharedRecords() throws -> SharedRecords {
        let expenses = try connection.cached("""
            SELECT \(RecordColumns.list) FROM records
            WHERE deleted = 0 AND \(Self.paidByColumn) <> '' AND \(Self.splitColumn) <> ''
            """).map { try StoredRecord(row: $0).record.expense }
        let transfers = try connection.cached(literal: """
            SELECT seq, id, kind, version, deleted, fields, field_versions FROM data_records WHERE kind = ?1 AND deleted = 0
            """).map([.text(RecordKind.transfer.rawValue)]) { try Self.decodeData($0).record }
        return SharedRecords(expenses: expenses, transfers: transfers, head: head)
    }

    /// The columns of an expense's payer and split, named by ``ExpenseCore/ExpenseColumns``.
    static let paidByColumn = ExpenseColumns.names[Int(ExpenseColumns.paidBy)]
    static let splitColumn = ExpenseColumns.names[Int(ExpenseColumns.split)]
}
