import ExpenseCore
import ExpenseProtocol
import PostgreSQL

extension PostgresLedgerStore {
    /// The ledger's head, its selected expenses (the shared ones by their payer and split, both non-empty text;
    /// the dated ones by their `day`) and each selected kind's records, read in one `REPEATABLE READ READ ONLY`
    /// transaction: one snapshot, so a record another daemon changes meanwhile is read once, as it was at that head
    /// (read a page at a time, it could move past the pages and be missed). The head read there becomes this
    /// store's, as ``refresh()`` would make it.
    package func records(_ selection: RecordSelection) throws -> SelectedRecords {
        precondition(!inTransaction, "a read of its own, outside a write transaction")
        try ensureConnected()
        let ledger: [PostgresValue] = [.integer(number)]
        let records = try Self.storage {
            let connection = try connection
            return try connection.transaction { () throws -> SelectedRecords in
                try connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                guard let stored = try connection.query("SELECT head FROM ledgers WHERE name = $1", [.text(name)]).first?.int64(0) else {
                    throw LedgerError.unknownLedger(name)
                }
                let expenses: [Expense]
                switch selection.expenses {
                case .shared:
                    expenses = try connection.query("""
                        SELECT \(RecordColumns.list) FROM records
                        WHERE ledger = $1 AND NOT deleted AND \(SQLiteLedgerStore.sharedCondition(.postgres))
                        """, ledger).all.map { try StoredRecord(row: $0).record.expense }
                case .dated:
                    let days = selection.dayOrdinals
                    expenses = try connection.query("""
                        SELECT \(RecordColumns.list) FROM records
                        WHERE ledger = $1 AND NOT deleted AND \(SQLiteLedgerStore.dayColumn) BETWEEN $2 AND $3
                        """, ledger + [.integer(days.lowerBound), .integer(days.upperBound)]).all.map { try StoredRecord(row: $0).record.expense }
                }
                var data: [DataRecord] = []
                for kind in selection.kinds {
                    data += try connection.query("""
                        SELECT \(Self.dataColumns) FROM data_records WHERE ledger = $1 AND kind = $2 AND NOT deleted
                        """, ledger + [.text(kind.rawValue)]).all.map { try Self.decodeData($0).record }
                }
                return SelectedRecords(expenses: expenses, data: data, head: stored)
            }
        }
        // Never backwards: this store's head moves only forward, as the ledger's watchers expect.
        head = max(head, records.head)
        return records
    }
}
