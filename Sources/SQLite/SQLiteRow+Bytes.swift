import CSQLite

extension SQLiteRow {
    /// Calls `body` with the bytes of the text in column `index` (empty for NULL), without making a `String`:
    /// the bytes are SQLite's own and valid only during the call.
    @inlinable public func withText<Result>(_ index: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        guard let pointer = sqlite3_column_text(statement.handle, index) else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(statement.handle, index))))
    }

    /// The bytes of the text in column `index` (empty for NULL), for a caller holding several columns' texts at
    /// once (a record written from its row; one text at a time is lent by ``withText(_:_:)``). The bytes are
    /// SQLite's own: valid until the statement steps on or is reset (this row's life), the column read as text
    /// only.
    @inlinable public func textBytes(_ index: Int32) -> UnsafeBufferPointer<UInt8> {
        // The size first: an empty text (most of an expense's optional fields) then costs one call, not two. A
        // text column's bytes are not converted by either call, so the size holds for the pointer read after it.
        let count = Int(sqlite3_column_bytes(statement.handle, index))
        guard count > 0, let pointer = sqlite3_column_text(statement.handle, index) else {
            return UnsafeBufferPointer(start: nil, count: 0)
        }
        return UnsafeBufferPointer(start: pointer, count: count)
    }

    /// Calls `body` with the bytes of the blob in column `index` (empty for NULL or an empty blob), without
    /// making an array: the bytes are SQLite's own and valid only during the call.
    @inlinable public func withBlob<Result>(_ index: Int32, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        let pointer = sqlite3_column_blob(statement.handle, index)  // first, then its size (SQLite's documented order)
        let count = Int(sqlite3_column_bytes(statement.handle, index))
        guard count > 0, let pointer else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        return try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
