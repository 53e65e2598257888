import ExpenseCore
import ExpenseProtocol
import Foundation
import PostgreSQL
import SQLite
@testable import ExpenseServer

/// A `records` row as both stores held it in an older layout. Tests that write a ledger as an older program left it
/// write its records this way.
enum LegacyRecordColumns {
    enum Layout {
        /// Before the optional fields shared one column (the SQLite store's migration 16, the PostgreSQL store's
        /// 12): each optional field in a column of its own, empty (or 0) for none, and each field version too.
        case separateFields
        /// Before the field versions shared one column (the SQLite store's migration 17, the PostgreSQL store's
        /// 13): the optional fields in `extras`, each field version in a column of its own.
        case separateVersions
    }

    static func names(_ layout: Layout) -> [String] {
        let values = switch layout {
        case .separateFields:
            ["amount", "currency", "category", "day", "note", "paid_by", "split", "charged", "tags", "parts", "source"]
        case .separateVersions: ExpenseColumns.names
        }
        return ["seq", "version", "deleted"] + values + FieldVersions.separateColumns + ["id"]
    }

    /// Writes `stored`'s row, column after column in ``names(_:)``' order.
    static func write(_ stored: StoredRecord, _ layout: Layout, to row: inout some RecordColumnWriter) throws {
        let expense = stored.record.expense
        try row.integer(stored.record.seq)
        try row.integer(stored.record.version)
        try row.flag(stored.record.deleted)
        switch layout {
        case .separateFields:
            try row.integer(expense.amount)
            try row.text(expense.currency.code)
            try row.text(expense.category)
            try row.integer(Int64(expense.date.ordinal))
            try row.text(expense.note)
            try row.text(expense.paidByText)
            try row.text(expense.splitText)
            try row.integer(expense.chargedValue)
            try row.text(expense.tagsText)
            try row.text(expense.partsText)
            try row.text(expense.source)
        case .separateVersions:
            try ExpenseColumns.write(expense, to: &row)
        }
        for index in stored.fieldVersions.groups.indices { try row.integer(stored.fieldVersions.groups[index]) }
        try row.id(expense.id)
    }

    /// Inserts `records` into an SQLite ledger file of the older schema.
    static func insert(_ records: [StoredRecord], _ layout: Layout, into connection: SQLiteConnection) throws {
        let names = names(layout)
        try SQLiteRowStatement(connection: connection, head: "INSERT INTO records (\(names.joined(separator: ", ")))",
                               columns: names.count)
            .run(count: records.count) { row, index in try write(records[index], layout, to: &row) }
    }

    /// Inserts `records` of the ledger numbered `ledger` into a PostgreSQL database of the older schema.
    static func insert(_ records: [StoredRecord], _ layout: Layout, ledger: Int64, into connection: PostgresConnection) throws {
        let names = names(layout), placeholders = (2...(names.count + 1)).map { "$\($0)" }.joined(separator: ", ")
        for stored in records {
            var row = PostgresRow()
            try write(stored, layout, to: &row)
            try connection.query("INSERT INTO records (ledger, \(names.joined(separator: ", "))) VALUES ($1, \(placeholders))",
                                 [.integer(ledger)] + row.values)
        }
    }

    /// One row's values as PostgreSQL parameters.
    private struct PostgresRow: RecordColumnWriter {
        var values: [PostgresValue] = []
        mutating func integer(_ value: Int64) throws { values.append(.integer(value)) }
        mutating func text(_ value: String) throws { values.append(.text(value)) }
        mutating func null() throws { values.append(.null) }
        mutating func id(_ value: UUID) throws { values.append(.text(UUIDText.lowercased(value))) }
        mutating func flag(_ value: Bool) throws { values.append(.bool(value)) }
    }
}
