import CSQLite

/// One statement that writes many rows: `head` + `VALUES (?, …), (?, …), …` + `tail`, so that a transaction
/// writing n rows steps about log₂ n statements instead of n: 10 per table for a 500-row group, not 500.
///
/// Rows go in chunks of at most ``maximumRows``; the rest below a chunk is split into powers of two, so at most
/// one statement per power of two up to ``maximumRows`` is ever prepared, each on first use. The rows are
/// written in the order given, exactly as that many one-row statements in a row would write them.
///
/// Not `Sendable`: it belongs to its connection and is used only by the connection's owner.
public final class SQLiteRowStatement {
    /// Rows per statement at most. 64 rows of up to 15 columns stay under 999 parameters, the lowest
    /// `SQLITE_LIMIT_VARIABLE_NUMBER` any SQLite build has had; wider rows need the connection's own limit to be
    /// higher (3.32 raised the default to 32,766), which ``init(connection:head:row:tail:)`` checks.
    public static let maximumRows = 64

    unowned let connection: SQLiteConnection
    let head: String
    /// One row's values: `(?, ?, …)`, or with constants among the parameters (`(?, 1, ?)`).
    let row: String
    let columns: Int
    let tail: String
    /// The statement for 2^k rows at index k.
    private var statements: [SQLiteStatement?]
    /// For the statement at index k, which of its parameters hold the empty text or the integer 0 now
    /// (``SQLiteRowBinder/HeldValues``): SQLite keeps a binding from one chunk to the next, so an optional field
    /// most rows leave empty is bound once per run instead of once per row.
    private var held: [SQLiteRowBinder.HeldValues?]
    /// The copies of the texts and blobs bound during a run (``SQLiteBindArena``).
    private let arena = SQLiteBindArena()

    /// - Parameters:
    ///   - head: the SQL before `VALUES`, e.g. `INSERT INTO t (a, b)`.
    ///   - columns: the parameters per row.
    ///   - tail: the SQL after the rows, e.g. `ON CONFLICT (a) DO UPDATE SET b = excluded.b` (may be empty).
    /// - Precondition: `columns × maximumRows` ≤ the connection's `SQLITE_LIMIT_VARIABLE_NUMBER`.
    public convenience init(connection: SQLiteConnection, head: String, columns: Int, tail: String = "") {
        self.init(connection: connection, head: head, row: "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")",
                  tail: tail)
    }

    /// A statement whose rows are `row`, the values of one row with constants among its `?` parameters, such as
    /// `(?, ?, 1, 0, ?)`: each row binds only its parameters, and the constants cost no bind.
    /// - Precondition: `row` has at least one `?`, and a chunk of them stays within the connection's limit of
    ///   parameters (a fixed statement of this program, never input).
    public init(connection: SQLiteConnection, head: String, row: String, tail: String = "") {
        let columns = row.utf8.reduce(0) { $1 == UInt8(ascii: "?") ? $0 + 1 : $0 }
        let limit = Int(sqlite3_limit(connection.handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        precondition(columns > 0 && columns * Self.maximumRows <= limit, "a chunk must stay within SQLite's limit of parameters")
        self.connection = connection
        self.head = head
        self.row = row
        self.columns = columns
        self.tail = tail
        // 1, 2, 4, …, maximumRows.
        self.statements = Array(repeating: nil, count: Self.maximumRows.trailingZeroBitCount + 1)
        self.held = Array(repeating: nil, count: statements.count)
    }

    deinit {
        for values in held { values?.words.deallocate() }
    }

    /// Writes `count` rows; `bind` binds row `index`'s `columns` values, in column order, through the binder.
    /// - Throws: the first SQLite error; rows of earlier chunks are then written, so run it inside a
    ///   transaction that the error rolls back (as every write of the ledger store is).
    ///
    /// Values bound without a copy (``SQLiteRowBinder/text(noCopy:)``, ``SQLiteRowBinder/blob(noCopy:)``)
    /// must stay valid until `run` returns; the statements it used have their bindings cleared before it returns
    /// (also when it throws), so no statement keeps a pointer to them or to the run's own copies of the other
    /// texts and blobs (``SQLiteBindArena``).
    public func run(count: Int, _ bind: (inout SQLiteRowBinder, Int) throws -> Void) throws {
        var done = 0
        // Bit k: the statement for 2^k rows has a text or blob bound (a set, not a list: nothing is allocated).
        var borrowing: UInt = 0
        defer {
            while borrowing != 0 {
                let power = borrowing.trailingZeroBitCount
                if let statement = statements[power] {
                    sqlite3_clear_bindings(statement.handle)
                    held[power]?.forget()
                }
                borrowing &= borrowing - 1
            }
            arena.reset()
        }
        while done < count {
            let left = count - done
            // The largest power of two that fits, up to maximumRows.
            let power = min(Self.maximumRows.trailingZeroBitCount, Int.bitWidth - 1 - left.leadingZeroBitCount)
            let rows = 1 << power
            let statement = try self.statement(power: power)
            sqlite3_reset(statement.handle)
            var binder = SQLiteRowBinder(statement: statement, arena: arena, held: held[power])
            defer { if binder.borrows { borrowing |= 1 << power } }
            for row in done..<(done + rows) {
                try bind(&binder, row)
                precondition(binder.next == Int32((row + 1 - done) * columns + 1), "bind binds every column of its row")
            }
            while try statement.step() {}
            sqlite3_reset(statement.handle)
            done += rows
        }
    }

    private func statement(power: Int) throws -> SQLiteStatement {
        if let statement = statements[power] { return statement }
        let sql = head + " VALUES " + Array(repeating: row, count: 1 << power).joined(separator: ", ")
            + (tail.isEmpty ? "" : " " + tail)
        let statement = try connection.prepare(sql)
        statements[power] = statement
        held[power] = SQLiteRowBinder.HeldValues(parameters: (1 << power) * columns)
        return statement
    }
}

/// Binds the parameters of a ``SQLiteRowStatement`` one after another, without building an array of values.
///
/// The binders of integers and of bytes without a copy are inlinable: a first sync binds nine values for each of
/// a million rows, and a call into this module per value cost about half as much again as SQLite's own binding.
public struct SQLiteRowBinder {
    @usableFromInline let statement: SQLiteStatement
    /// Where texts and blobs bound by value are copied, to be bound from there without SQLite's own copy.
    let arena: SQLiteBindArena
    /// The next parameter's index (1-based).
    @usableFromInline var next: Int32 = 1
    /// Whether a value was bound without a copy (``SQLiteRowStatement/run(count:_:)`` then clears the bindings).
    @usableFromInline var borrows = false
    /// Which parameters hold the empty text or 0 from an earlier binding; `nil`: none is tracked.
    @usableFromInline let held: HeldValues?

    init(statement: SQLiteStatement, arena: SQLiteBindArena, held: HeldValues? = nil) {
        self.statement = statement
        self.arena = arena
        self.held = held
    }

    /// Which parameters of a statement hold the empty text, and which the integer 0, bound by ``text(_:)`` or
    /// ``integer(_:)`` and not bound since: binding the same value again is skipped. Every other binding clears
    /// the parameter's bits (``check(_:)``); clearing the statement's bindings forgets them all (``forget()``).
    @usableFromInline struct HeldValues {
        /// Two sets of one bit per parameter (bit i - 1 for parameter i): the empty texts, then the zeros.
        @usableFromInline let words: UnsafeMutablePointer<UInt64>
        /// The words of one set.
        @usableFromInline let count: Int

        init(parameters: Int) {
            count = (parameters + 63) / 64
            words = UnsafeMutablePointer<UInt64>.allocate(capacity: 2 * count)
            words.initialize(repeating: 0, count: 2 * count)
        }

        /// Whether `parameter` (1-based) holds the empty text (`zero` false) or 0 (`zero` true).
        @inlinable func holds(_ parameter: Int32, zero: Bool) -> Bool {
            let index = Int(parameter - 1)
            return words[(zero ? count : 0) + index >> 6] & (UInt64(1) << UInt64(index & 63)) != 0
        }

        @inlinable func set(_ parameter: Int32, zero: Bool) {
            let index = Int(parameter - 1)
            words[(zero ? count : 0) + index >> 6] |= UInt64(1) << UInt64(index & 63)
        }

        @inlinable func clear(_ parameter: Int32) {
            let index = Int(parameter - 1), mask = ~(UInt64(1) << UInt64(index & 63))
            words[index >> 6] &= mask
            words[count + index >> 6] &= mask
        }

        func forget() { words.update(repeating: 0, count: 2 * count) }
    }

    /// Binds `value`, unless the parameter holds 0 already and `value` is 0 (an amount charged most expenses
    /// leave out, a flag most rows leave clear).
    @inlinable public mutating func integer(_ value: Int64) throws {
        if value == 0, let held {
            if held.holds(next, zero: true) {
                next += 1
                return
            }
            let parameter = next
            try check(sqlite3_bind_int64(statement.handle, next, 0))
            held.set(parameter, zero: true)
            return
        }
        try check(sqlite3_bind_int64(statement.handle, next, value))
    }

    public mutating func null() throws {
        try check(sqlite3_bind_null(statement.handle, next))
    }

    /// Binds every UTF-8 byte of `text` (interior NULs included; the empty string as empty text, not NULL), as
    /// ``SQLiteStatement/bind(_:)`` does; copied now (into the run's ``SQLiteBindArena``).
    public mutating func text(_ text: String) throws {
        // The empty text (an optional field an expense does not use: its tags, parts, original text) is bound as
        // it is, without lending its bytes: three of an expense's eleven values are empty on most rows.
        if text.isEmpty { return try bindEmptyText() }
        // A native or small string lends its bytes in place; only another (bridged) one is copied first.
        if try text.utf8.withContiguousStorageIfAvailable({ try self.text(utf8: UnsafeRawBufferPointer($0)) }) != nil { return }
        var text = text
        try text.withUTF8 { try self.text(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// Binds the empty text (not NULL), unless the parameter holds it already.
    @inline(__always) private mutating func bindEmptyText() throws {
        let parameter = next
        if let held, held.holds(parameter, zero: false) {
            next += 1
            return
        }
        try check(sqlite3_bind_text64(statement.handle, next, Self.emptyText.assumingMemoryBound(to: CChar.self), 0, nil,
                                      UInt8(SQLITE_UTF8)))  // nil: SQLITE_STATIC
        held?.set(parameter, zero: false)
    }

    /// Binds UTF-8 bytes as text, copied now (into the run's ``SQLiteBindArena``, which SQLite then reads
    /// without a copy of its own); an empty buffer as empty text, not NULL.
    public mutating func text(utf8 bytes: UnsafeRawBufferPointer) throws {
        let handle = statement.handle, index = next
        // A zero-length text needs a non-NULL pointer: NULL would bind SQL NULL.
        let start = arena.copy(bytes) ?? Self.emptyText
        borrows = true
        try check(sqlite3_bind_text64(handle, index, start.assumingMemoryBound(to: CChar.self), UInt64(bytes.count),
                                      nil, UInt8(SQLITE_UTF8)))  // nil: SQLITE_STATIC
    }

    /// Binds UTF-8 bytes as text without copying them (`SQLITE_STATIC`): SQLite reads them when the statement
    /// steps, so they must stay valid until ``SQLiteRowStatement/run(count:_:)`` returns. An empty buffer is
    /// empty text, not NULL. (A copy per value is a `malloc`, a `memcpy` and a `free` each time a value is
    /// bound again: a first sync binds three texts and an id for each of a million rows.)
    @inlinable public mutating func text(noCopy bytes: UnsafeRawBufferPointer) throws {
        let handle = statement.handle, index = next
        let start = bytes.baseAddress ?? Self.emptyText
        borrows = true
        try check(sqlite3_bind_text64(handle, index, start.assumingMemoryBound(to: CChar.self), UInt64(bytes.count),
                                      nil, UInt8(SQLITE_UTF8)))  // nil: SQLITE_STATIC
    }

    /// Binds the bytes as a blob without copying them, as ``text(noCopy:)`` binds text; an empty buffer as a
    /// zero-length blob, not NULL.
    @inlinable public mutating func blob(noCopy bytes: UnsafeRawBufferPointer) throws {
        let handle = statement.handle, index = next
        if bytes.isEmpty {
            try check(sqlite3_bind_zeroblob(handle, index, 0))
        } else {
            borrows = true
            try check(sqlite3_bind_blob64(handle, index, bytes.baseAddress, UInt64(bytes.count), nil))  // nil: SQLITE_STATIC
        }
    }

    /// `text`, or NULL for `nil`.
    public mutating func text(_ text: String?) throws {
        if let text { try self.text(text) } else { try null() }
    }

    /// Binds the bytes, copied now (as ``text(utf8:)`` copies); an empty buffer as a zero-length blob, not NULL.
    public mutating func blob(_ bytes: UnsafeRawBufferPointer) throws {
        let handle = statement.handle, index = next
        if let copy = arena.copy(bytes) {
            borrows = true
            try check(sqlite3_bind_blob64(handle, index, copy, UInt64(bytes.count), nil))  // nil: SQLITE_STATIC
        } else {
            try check(sqlite3_bind_zeroblob(handle, index, 0))
        }
    }

    /// ``SQLiteValue`` in its own case.
    public mutating func value(_ value: SQLiteValue) throws {
        switch value {
        case .null: try null()
        case .integer(let number): try integer(number)
        case .text(let text): try self.text(text)
        case .blob(let bytes): try bytes.withUnsafeBytes { try blob($0) }
        }
    }

    /// Moves on to the next parameter once `result` (a binding of the current one) is `SQLITE_OK`; the parameter
    /// no longer holds the empty text or 0 of an earlier binding (a caller that bound one marks it again).
    @inlinable mutating func check(_ result: Int32) throws {
        held?.clear(next)  // also when it failed: the parameter may have been unbound
        guard result == SQLITE_OK else { throw failure(result) }
        next += 1
    }

    /// The error of a failed bind (out of line: never taken on the way of a row).
    @usableFromInline func failure(_ result: Int32) -> SQLiteError {
        statement.connection.error(result, sql: statement.sql)
    }

    /// A non-NULL pointer for empty text: a NULL one would bind SQL NULL.
    @usableFromInline static var emptyText: UnsafeRawPointer {
        let empty: StaticString = ""
        return UnsafeRawPointer(empty.utf8Start)
    }
}
