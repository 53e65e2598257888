import CSQLite

/// One statement that writes many rows: `head` + `VALUES (?, …), (?, …), …` + `tail`, so that a transaction
/// writing n rows steps about log₂ n statements instead of n (docs/benchmarks.md, "Round 5, push rows").
///
/// Rows go in chunks of at most ``maximumRows``; the rest below a chunk is split into powers of two, so at most
/// one statement per power of two up to ``maximumRows`` is ever prepared, each on first use. The rows are
/// written in the order given, exactly as that many one-row statements in a row would write them.
///
/// Text and blob values are not handed to SQLite one by one, each copied into an allocation of SQLite's own
/// (a `malloc` and a `free` per value: about a tenth of a group commit's work on the ledger's thread,
/// docs/benchmarks.md, "Round 7, ledger thread"): the binder appends their bytes to one buffer, reused from
/// chunk to chunk, and binds them without a copy (`SQLITE_STATIC`) once the chunk's rows are all given, for
/// as long as the chunk's statement steps; its bindings are cleared before the buffer changes again.
///
/// Not `Sendable`: it belongs to its connection and is used only by the connection's owner.
public final class SQLiteRowStatement {
    /// Rows per statement at most: 64 rows of up to 15 columns stay under 999 parameters, the lowest
    /// `SQLITE_LIMIT_VARIABLE_NUMBER` any SQLite build has had (3.32 raised the default to 32,766).
    public static let maximumRows = 64

    unowned let connection: SQLiteConnection
    let head: String
    /// One row's values: `(?, ?, …)`, or with constants among the parameters (`(?, 1, ?)`).
    let row: String
    let columns: Int
    let tail: String
    /// The statement for 2^k rows at index k.
    private var statements: [SQLiteStatement?]
    /// The bytes of a chunk's text and blob values and where each is bound, kept between chunks and runs for
    /// their capacity (``SQLiteRowBinder/bytes``, ``SQLiteRowBinder/borrowed``).
    private var bytes: [UInt8] = []
    private var borrowed: [SQLiteRowBinder.Borrowed] = []

    /// - Parameters:
    ///   - head: the SQL before `VALUES`, e.g. `INSERT INTO t (a, b)`.
    ///   - columns: the parameters per row.
    ///   - tail: the SQL after the rows, e.g. `ON CONFLICT (a) DO UPDATE SET b = excluded.b` (may be empty).
    /// - Precondition: `columns × maximumRows` ≤ 999.
    public convenience init(connection: SQLiteConnection, head: String, columns: Int, tail: String = "") {
        self.init(connection: connection, head: head, row: "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")",
                  tail: tail)
    }

    /// A statement whose rows are `row`, the values of one row with constants among its `?` parameters, such as
    /// `(?, ?, 1, 0, ?)`: each row binds only its parameters, and the constants cost no bind.
    /// - Precondition: `row` has at least one `?`, and a chunk of them stays under 999 parameters.
    public init(connection: SQLiteConnection, head: String, row: String, tail: String = "") {
        let columns = row.utf8.reduce(0) { $1 == UInt8(ascii: "?") ? $0 + 1 : $0 }
        precondition(columns > 0 && columns * Self.maximumRows <= 999, "a chunk must stay under 999 parameters")
        self.connection = connection
        self.head = head
        self.row = row
        self.columns = columns
        self.tail = tail
        // 1, 2, 4, …, maximumRows.
        self.statements = Array(repeating: nil, count: Self.maximumRows.trailingZeroBitCount + 1)
    }

    /// Writes `count` rows; `bind` binds row `index`'s `columns` values, in column order, through the binder.
    /// - Throws: the first SQLite error; rows of earlier chunks are then written, so run it inside a
    ///   transaction that the error rolls back (as every write of the ledger store is).
    public func run(count: Int, _ bind: (inout SQLiteRowBinder, Int) throws -> Void) throws {
        var done = 0
        while done < count {
            let left = count - done
            // The largest power of two that fits, up to maximumRows.
            let power = min(Self.maximumRows.trailingZeroBitCount, Int.bitWidth - 1 - left.leadingZeroBitCount)
            let rows = 1 << power
            let statement = try self.statement(power: power)
            sqlite3_reset(statement.handle)
            var binder = SQLiteRowBinder(statement: statement, bytes: [], borrowed: [])
            swap(&binder.bytes, &bytes)
            swap(&binder.borrowed, &borrowed)
            defer {
                swap(&binder.bytes, &bytes)
                swap(&binder.borrowed, &borrowed)
                bytes.removeAll(keepingCapacity: true)
                borrowed.removeAll(keepingCapacity: true)
            }
            for row in done..<(done + rows) {
                try bind(&binder, row)
                precondition(binder.next == Int32((row + 1 - done) * columns + 1), "bind binds every column of its row")
            }
            try binder.withBorrowedValuesBound {
                while try statement.step() {}
            }
            done += rows
        }
    }

    private func statement(power: Int) throws -> SQLiteStatement {
        if let statement = statements[power] { return statement }
        let sql = head + " VALUES " + Array(repeating: row, count: 1 << power).joined(separator: ", ")
            + (tail.isEmpty ? "" : " " + tail)
        let statement = try connection.prepare(sql)
        statements[power] = statement
        return statement
    }
}

/// Binds the parameters of a ``SQLiteRowStatement`` one after another, without building an array of values.
///
/// Integers and NULLs are bound at once; the bytes of a text or a blob are appended to ``bytes`` and bound from
/// there, without a copy, when the chunk is complete (``withBorrowedValuesBound(_:)``).
public struct SQLiteRowBinder {
    /// A text or blob parameter whose bytes are ``bytes``[`start` ..< `start + count`].
    struct Borrowed {
        var index: Int32
        var start: Int
        var count: Int
        var isText: Bool
    }

    let statement: SQLiteStatement
    /// The next parameter's index (1-based).
    var next: Int32 = 1
    /// The chunk's text and blob bytes, end to end.
    var bytes: [UInt8]
    /// Which parameter each slice of ``bytes`` is bound to.
    var borrowed: [Borrowed]

    public mutating func integer(_ value: Int64) throws {
        try check(sqlite3_bind_int64(statement.handle, next, value))
    }

    public mutating func null() throws {
        try check(sqlite3_bind_null(statement.handle, next))
    }

    /// Binds every UTF-8 byte of `text` (interior NULs included; the empty string as empty text, not NULL), as
    /// ``SQLiteStatement/bind(_:)`` does.
    public mutating func text(_ text: String) throws {
        let start = bytes.count
        bytes.append(contentsOf: text.utf8)
        borrow(start: start, isText: true)
    }

    /// Binds UTF-8 bytes as text (copied now); an empty buffer as empty text, not NULL.
    public mutating func text(utf8 bytes: UnsafeRawBufferPointer) throws {
        let start = self.bytes.count
        self.bytes.append(contentsOf: bytes)
        borrow(start: start, isText: true)
    }

    /// `text`, or NULL for `nil`.
    public mutating func text(_ text: String?) throws {
        if let text { try self.text(text) } else { try null() }
    }

    /// Binds the bytes (copied now); an empty buffer as a zero-length blob, not NULL.
    public mutating func blob(_ bytes: UnsafeRawBufferPointer) throws {
        if bytes.isEmpty {
            try check(sqlite3_bind_zeroblob(statement.handle, next, 0))
        } else {
            let start = self.bytes.count
            self.bytes.append(contentsOf: bytes)
            borrow(start: start, isText: false)
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

    private mutating func check(_ result: Int32) throws {
        guard result == SQLITE_OK else { throw statement.connection.error(result, sql: statement.sql) }
        next += 1
    }

    /// Takes the parameter ``next`` for the bytes appended to ``bytes`` since `start`.
    private mutating func borrow(start: Int, isText: Bool) {
        borrowed.append(Borrowed(index: next, start: start, count: bytes.count - start, isText: isText))
        next += 1
    }

    /// Binds every text and blob of the chunk to its slice of ``bytes``, without a copy, runs `body` (the
    /// statement's steps), then resets the statement and clears its bindings: SQLite reads the bytes only while
    /// they are bound, and they are bound only while ``bytes`` cannot change.
    mutating func withBorrowedValuesBound(_ body: () throws -> Void) throws {
        let handle = statement.handle, statement = statement, borrowed = borrowed
        try bytes.withUnsafeBytes { bytes in
            defer {
                sqlite3_reset(handle)
                sqlite3_clear_bindings(handle)
            }
            // A zero-length text needs a non-NULL pointer: NULL would bind SQL NULL.
            let empty: StaticString = ""
            let base = bytes.baseAddress ?? UnsafeRawPointer(empty.utf8Start)
            for value in borrowed {
                let start = base + value.start
                let result = value.isText
                    ? sqlite3_bind_text64(handle, value.index, start.assumingMemoryBound(to: CChar.self), UInt64(value.count),
                                          nil, UInt8(SQLITE_UTF8))
                    : sqlite3_bind_blob64(handle, value.index, start, UInt64(value.count), nil)
                guard result == SQLITE_OK else { throw statement.connection.error(result, sql: statement.sql) }
            }
            try body()
        }
    }
}
