import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// The `records` table of both SQL stores, declared once: every statement that reads or writes records names
/// its columns with ``list`` (in this one order), reads a row with ``StoredRecord/init(row:id:)`` and writes one
/// with ``StoredRecord/write(to:)`` — no statement spells the columns or counts positions of its own.
///
/// The order: `seq`, `version`, `deleted`, the expense's values (``ExpenseCore/ExpenseColumns``), the field
/// versions (one column, ``FieldVersions/columnName``), `id` last (a statement that knows the id may leave it out).
enum RecordColumns {
    static let seq: Int32 = 0
    static let version: Int32 = 1
    static let deleted: Int32 = 2
    /// The expense's values start here.
    static let values: Int32 = 3
    /// The field versions' one column.
    static let fieldVersions = values + ExpenseColumns.count
    static let id = fieldVersions + 1

    static let names = ["seq", "version", "deleted"] + ExpenseColumns.names + [FieldVersions.columnName, "id"]
    /// Every column, in order: a SELECT list and an INSERT's column list.
    static let list = names.joined(separator: ", ")
    /// The columns a pull page writes, in the order above without the field versions: `id` comes at ``pageId``.
    static let pageList = (names[..<Int(fieldVersions)] + ["id"]).joined(separator: ", ")
    static let pageId = fieldVersions
    /// Every column but `id`, for a read whose id is known.
    static let listWithoutId = names.dropLast().joined(separator: ", ")
    /// `c = excluded.c` for every column but `id`: an upsert replacing a record's row.
    static let replacingExcluded = ExpenseColumns.replacingExcluded(Array(names.dropLast()))

    /// A new record's columns that are the same for every creation (version 1, live, every field at version 1:
    /// the empty text), by position; ``StoredRecord/writeCreation(to:)`` writes the others.
    static let creationConstants: [Int32: String] = [version: "1", deleted: "0", fieldVersions: "''"]

    /// One row's placeholders for a creation: `?` for each bound column, the constant of the others.
    static let creationRow = "(" + (0..<Int32(names.count)).map { creationConstants[$0] ?? "?" }.joined(separator: ", ") + ")"

    /// What each column holds, in order, for a store whose parameters are typed (PostgreSQL's arrays).
    static let types: [RecordColumnType] = [.integer, .integer, .flag] + ExpenseColumns.types.map(RecordColumnType.init)
        + [.text, .id]
}

/// What a `records` column holds.
enum RecordColumnType {
    case integer, day, text, flag, id

    init(_ value: ExpenseColumnType) {
        switch value {
        case .integer: self = .integer
        case .text, .currency, .extras: self = .text
        case .day: self = .day
        }
    }
}

/// A `records` row being written column after column: an expense's values, and the id and flag of a record.
protocol RecordColumnWriter: ExpenseColumnWriter {
    mutating func id(_ value: UUID) throws
    mutating func flag(_ value: Bool) throws
}

/// A `records` row read by column position.
protocol RecordColumnReader: ExpenseColumnReader {
    /// The id in `column`, or `nil` when it does not decode.
    func id(_ column: Int32) -> UUID?
    func flag(_ column: Int32) -> Bool
}

extension StoredRecord {
    /// Writes every column of this record's row, in ``RecordColumns``' order.
    @inline(__always)
    func write(to row: inout some RecordColumnWriter) throws {
        try row.integer(record.seq)
        try row.integer(record.version)
        try row.flag(record.deleted)
        try ExpenseColumns.write(record.expense, to: &row)
        try fieldVersions.write(to: &row)
        try row.id(record.expense.id)
    }

    /// Writes the columns of a creation's row that are not ``RecordColumns/creationConstants``, in order.
    @inline(__always)
    func writeCreation(to row: inout some RecordColumnWriter) throws {
        try row.integer(record.seq)
        try ExpenseColumns.write(record.expense, to: &row)
        try row.id(record.expense.id)
    }

    /// The record of a `records` row read from column 0 in ``RecordColumns``' order; `id` when the statement
    /// left the id out. The values were validated before they were written: a row that no longer decodes means
    /// the database was changed behind the daemon's back.
    init(row: some RecordColumnReader, id knownId: UUID? = nil) throws {
        guard let id = knownId ?? row.id(RecordColumns.id) else {
            throw LedgerError.storageFailed("a record's id is damaged in the database")
        }
        guard let expense = ExpenseColumns.read(id: id, from: row, at: RecordColumns.values) else {
            throw LedgerError.storageFailed("record \(UUIDText.lowercased(id)) has an invalid amount, currency or date in the database")
        }
        self.init(record: Record(expense: expense, version: row.int64(RecordColumns.version), seq: row.int64(RecordColumns.seq),
                                 deleted: row.flag(RecordColumns.deleted)),
                  fieldVersions: try FieldVersions(row: row, at: RecordColumns.fieldVersions, id: id))
    }
}
