import ExpenseCore
import FoundationEssentials

/// One record's expense values as its object is written (``ExpenseFields/writeRecordObject(to:_:deleted:id:seq:version:)``),
/// by ``ExpenseCore/ExpenseColumns/Value`` positions (the stored columns' first five, then each optional field apart):
/// each integer's value (an amount, a day's ordinal, the amount charged) and each text's UTF-8 bytes, lent by whoever filled the row for as long as it is written.
///
/// A concrete row rather than a protocol a store's row conforms to: a pull page writes 10,000 objects, and a writer
/// generic over a row type of another module runs unspecialised there, a witness call and a closure per value (the
/// SQLite store's page cost 9,697 instructions per record that way and costs 6,845 with this row, callgrind).
public struct RecordObjectRow {
    // Visible to the inlinable accessors, which a store calls from another module for each value of each row: public,
    // as `@inlinable package` is neither inlined nor specialised in another module by this toolchain (Swift 6.3).
    // Spelled out, not ExpenseColumns' (package) aliases, which a public inlinable member cannot name; the init below
    // takes the aliases, so a column added there without growing these does not compile.
    @usableFromInline var integers: InlineArray<11, Int64>
    @usableFromInline var texts: InlineArray<11, UnsafeBufferPointer<UInt8>>

    @inlinable
    public init() {
        integers = InlineArray(repeating: 0)
        texts = InlineArray(repeating: UnsafeBufferPointer(start: nil, count: 0))
    }

    /// A row of these values (``ExpenseCore/ExpenseColumns/withValues(of:_:)``'), made in this module only.
    package init(integers: ExpenseColumns.Integers, texts: ExpenseColumns.Texts) {
        self.integers = integers
        self.texts = texts
    }

    /// The integer in the column at `position` (0 for a text column).
    @inlinable
    public func int64(_ position: Int32) -> Int64 { integers[Int(position)] }

    /// The text's bytes in the column at `position` (empty for an integer column and for an unused optional field).
    @inlinable
    public func text(_ position: Int32) -> UnsafeBufferPointer<UInt8> { texts[Int(position)] }

    @inlinable
    public mutating func setInt64(_ value: Int64, at position: Int32) { integers[Int(position)] = value }

    /// Sets the bytes the column at `position` holds; they must stay valid for as long as the row is written.
    @inlinable
    public mutating func setText(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int32) { texts[Int(position)] = bytes }
}

extension Record {
    /// Calls `body` with this record's expense as a row, its texts lent for the call
    /// (``ExpenseCore/ExpenseColumns/withValues(of:_:)``).
    @inline(__always)
    func withObjectRow(_ body: (RecordObjectRow) -> Void) {
        ExpenseColumns.withValues(of: expense) { integers, texts in body(RecordObjectRow(integers: integers, texts: texts)) }
    }
}
