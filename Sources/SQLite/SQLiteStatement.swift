import CSQLite

/// A prepared statement. Prepare once (``SQLiteConnection/cached(_:)``), then bind, step and reset many times.
///
/// Not `Sendable`: it belongs to its connection and is used only by the connection's owner.
public final class SQLiteStatement {
    @usableFromInline let handle: OpaquePointer
    let sql: String
    unowned let connection: SQLiteConnection

    init(connection: SQLiteConnection, sql: String) throws {
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard result == SQLITE_OK, let statement else {
            throw connection.error(result, sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement and binds `values` to its parameters `?1`, `?2`, … in order.
    /// Values are always bound, never spliced into SQL text.
    @discardableResult
    public func bind(_ values: [SQLiteValue]) throws -> SQLiteStatement {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case .null: result = sqlite3_bind_null(handle, index)
            case .integer(let number): result = sqlite3_bind_int64(handle, index, number)
            case .text(let text):
                // An explicit byte length, not -1: with -1 SQLite stops at the first NUL and would silently
                // store a shortened string. Swift strings may contain U+0000; keep every byte.
                // withCString's buffer holds every UTF-8 byte (interior NULs included) and is never NULL,
                // so even the empty string binds as empty text, not SQL NULL.
                result = text.withCString { chars in
                    sqlite3_bind_text64(handle, index, chars, UInt64(text.utf8.count),
                                        SQLiteStatement.transient, UInt8(SQLITE_UTF8))
                }
            case .blob(let bytes):
                if bytes.isEmpty {
                    // A NULL data pointer would bind SQL NULL; a zero-length blob is what was asked for.
                    result = sqlite3_bind_zeroblob(handle, index, 0)
                } else {
                    result = bytes.withUnsafeBytes { raw in
                        sqlite3_bind_blob64(handle, index, raw.baseAddress, UInt64(raw.count), SQLiteStatement.transient)
                    }
                }
            }
            guard result == SQLITE_OK else { throw connection.error(result, sql: sql) }
        }
        return self
    }

    /// Advances to the next row: `true` when a row is available, `false` when done.
    public func step() throws -> Bool {
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(result, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Binds, then steps to the end (for statements that return no rows).
    public func run(_ values: [SQLiteValue] = []) throws {
        try bind(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Binds and calls `body` for each row; the row is valid only inside `body`.
    public func forEach(_ values: [SQLiteValue] = [], _ body: (SQLiteRow) throws -> Void) throws {
        try bind(values)
        defer { sqlite3_reset(handle) }
        while try step() { try body(SQLiteRow(statement: self)) }
    }

    /// Binds and runs `body` on each row until it returns `false` (the rest are not read) or the rows end.
    public func forEachRow(_ values: [SQLiteValue] = [], while body: (SQLiteRow) throws -> Bool) throws {
        try bind(values)
        defer { sqlite3_reset(handle) }
        while try step() {
            if try !body(SQLiteRow(statement: self)) { return }
        }
    }

    /// Binds and maps every row.
    public func map<T>(_ values: [SQLiteValue] = [], _ transform: (SQLiteRow) throws -> T) throws -> [T] {
        var rows: [T] = []
        try forEach(values) { rows.append(try transform($0)) }
        return rows
    }

    /// Binds and maps the first row, if any.
    public func first<T>(_ values: [SQLiteValue] = [], _ transform: (SQLiteRow) throws -> T) throws -> T? {
        try bind(values)
        defer { sqlite3_reset(handle) }
        return try step() ? try transform(SQLiteRow(statement: self)) : nil
    }

    // SQLITE_TRANSIENT is a C macro Swift cannot import: it is the destructor value -1, "copy the value now".
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// The current row of a statement; read it only while the statement is on that row.
public struct SQLiteRow {
    @usableFromInline let statement: SQLiteStatement

    // The accessors of single values are inlinable: a pull page reads ten values from each of 10,000 rows, and a
    // call into this module per value cost more than SQLite's own accessor.

    /// The integer in column `index` (0-based); 0 for NULL.
    @inlinable public func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(statement.handle, index) }

    /// The integer in column `index` as `Int`.
    @inlinable public func int(_ index: Int32) -> Int { Int(sqlite3_column_int64(statement.handle, index)) }

    /// Whether column `index` is NULL.
    @inlinable public func isNull(_ index: Int32) -> Bool { sqlite3_column_type(statement.handle, index) == SQLITE_NULL }

    /// The text in column `index`; the empty string for NULL.
    public func text(_ index: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement.handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(statement.handle, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// The text in column `index`, or `nil` for NULL.
    public func optionalText(_ index: Int32) -> String? { isNull(index) ? nil : text(index) }

    /// The bytes in column `index`.
    public func blob(_ index: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement.handle, index))
        guard count > 0, let pointer = sqlite3_column_blob(statement.handle, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
