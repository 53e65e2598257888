import ExpenseCore
import Foundation

/// One record's expense values as its object is written (``ExpenseFields/writeRecordObject(to:_:deleted:id:seq:version:)``),
/// by ``ExpenseCore/ExpenseColumns``' positions: each integer column's value (an amount, a day's ordinal) and each
/// text column's UTF-8 bytes, lent by whoever filled the row for as long as it is written.
///
/// A concrete row rather than a protocol a store's row conforms to: a pull page writes 10,000 objects, and a writer
/// generic over a row type of another module runs unspecialised there, a witness call and a closure per value (the
/// SQLite store's page cost 9,697 instructions per record that way and costs 6,845 with this row, callgrind).
package struct RecordObjectRow {
    // Visible to the inlinable accessors, which a store calls from another module for each value of each row.
    @usableFromInline var integers: ExpenseColumns.Integers
    @usableFromInline var texts: ExpenseColumns.Texts

    @inlinable
    package init() {
        integers = ExpenseColumns.Integers(repeating: 0)
        texts = ExpenseColumns.Texts(repeating: UnsafeBufferPointer(start: nil, count: 0))
    }

    /// A row of these values (``ExpenseCore/ExpenseColumns/withValues(of:_:)``').
    @inlinable
    package init(integers: ExpenseColumns.Integers, texts: ExpenseColumns.Texts) {
        self.integers = integers
        self.texts = texts
    }

    /// The integer in the column at `position` (0 for a text column).
    @inlinable
    package func int64(_ position: Int32) -> Int64 { integers[Int(position)] }

    /// The text's bytes in the column at `position` (empty for an integer column and for an unused optional field).
    @inlinable
    package func text(_ position: Int32) -> UnsafeBufferPointer<UInt8> { texts[Int(position)] }

    @inlinable
    package mutating func setInt64(_ value: Int64, at position: Int32) { integers[Int(position)] = value }

    /// Sets the bytes the column at `position` holds; they must stay valid for as long as the row is written.
    @inlinable
    package mutating func setText(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int32) { texts[Int(position)] = bytes }
}

extension Record {
    /// Calls `body` with this record's expense as a row, its texts lent for the call
    /// (``ExpenseCore/ExpenseColumns/withValues(of:_:)``).
    @inline(__always)
    func withObjectRow(_ body: (RecordObjectRow) -> Void) {
        ExpenseColumns.withValues(of: expense) { integers, texts in body(RecordObjectRow(integers: integers, texts: texts)) }
    }
}
