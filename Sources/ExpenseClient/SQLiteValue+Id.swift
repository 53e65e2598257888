import ExpenseCore
import Foundation
import SQLite

/// The one place the SQLite cache turns an id into what its id columns hold and back: the UUID's 16 bytes as a
/// blob (``ExpenseCore/UUIDBlob``; migration 10, SQLiteExpenseStore+BlobIds.swift).
extension SQLiteValue {
    /// `id` bound as the cache's id columns hold it.
    static func id(_ id: UUID) -> SQLiteValue { .blob(UUIDBlob.bytes(id)) }
}

extension SQLiteRow {
    /// The id in column `index`, or `nil` when the column is not a 16-byte blob (a damaged or hand-edited row).
    func id(_ index: Int32) -> UUID? { UUIDBlob.uuid(blob(index)) }

    /// The id in column `index` as text for an error message: the UUID, or what the column holds instead.
    func idDescription(_ index: Int32) -> String {
        if let id = id(index) { return UUIDText.lowercased(id) }
        return isNull(index) ? "(no id)" : "x'" + blob(index).map { String($0, radix: 16) }.joined() + "'"
    }
}

/// A row's values bound by position, written column after column (``ExpenseCore/ExpenseColumns/write(_:to:)``).
struct SQLiteValueRow: ExpenseColumnWriter {
    var values: [SQLiteValue]

    init(_ values: [SQLiteValue] = []) { self.values = values }

    mutating func integer(_ value: Int64) { values.append(.integer(value)) }
    mutating func text(_ value: String) { values.append(.text(value)) }
    mutating func null() { values.append(.null) }
}

/// A cache row read by position, as ``ExpenseCore/ExpenseColumns`` reads an expense's values.
extension SQLiteRow: ExpenseColumnReader {}
