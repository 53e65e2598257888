import ExpenseCore
import ExpenseProtocol
import SQLite

extension SQLiteLedgerStore {
    /// The selected expenses in one statement that skips every other row without decoding it (the shared ones by
    /// their payer's and split's entries in the optional fields; the dated ones by their `day`), then each kind's records in
    /// one statement. The statements see one state: this store is the file's only writer (``DataDirectoryLock``)
    /// and runs on the ledger's thread, between transactions.
    package func records(_ selection: RecordSelection) throws -> SelectedRecords {
        let expenses: [Expense]
        switch selection.expenses {
        case .shared:
            expenses = try connection.cached("""
                SELECT \(RecordColumns.list) FROM records
                WHERE deleted = 0 AND \(Self.sharedCondition(.sqlite))
                """).map { try StoredRecord(row: $0).record.expense }
        case .dated:
            let days = selection.dayOrdinals
            expenses = try connection.cached("""
                SELECT \(RecordColumns.list) FROM records WHERE deleted = 0 AND \(Self.dayColumn) BETWEEN ?1 AND ?2
                """).map([.integer(days.lowerBound), .integer(days.upperBound)]) { try StoredRecord(row: $0).record.expense }
        }
        var data: [DataRecord] = []
        for kind in selection.kinds {
            data += try connection.cached(literal: """
                SELECT seq, id, kind, version, deleted, fields, field_versions FROM data_records WHERE kind = ?1 AND deleted = 0
                """).map([.text(kind.rawValue)]) { try Self.decodeData($0).record }
        }
        return SelectedRecords(expenses: expenses, data: data, head: head)
    }

    /// Whether a `records` row is a shared expense: it has a payer and a split (``ExpenseCore/ExpenseExtras``).
    static func sharedCondition(_ dialect: ExpenseExtras.SQLDialect) -> String {
        ExpenseExtras.sqlHolds(.paidBy, dialect: dialect) + " AND " + ExpenseExtras.sqlHolds(.split, dialect: dialect)
    }

    /// The column of an expense's day, named by ``ExpenseCore/ExpenseColumns``.
    static let dayColumn = ExpenseColumns.names[Int(ExpenseColumns.day)]
}
