import Foundation
import SQLite
import Testing

@Suite("SQLiteStatement and SQLiteRow")
struct SQLiteStatementTests {
    static func database() throws -> SQLiteConnection {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE v (k INTEGER PRIMARY KEY, value ANY) STRICT")
        return db
    }

    @Test("integers round trip, extremes included", arguments: [Int64.min, -1, 0, 1, 9_007_199_254_740_991, Int64.max])
    func integers(value: Int64) throws {
        let db = try Self.database()
        try db.prepare("INSERT INTO v (value) VALUES (?1)").run([.integer(value)])
        #expect(try db.prepare("SELECT value, typeof(value) FROM v").first { [String($0.int64(0)), $0.text(1)] }
            == [String(value), "integer"])
    }

    @Test("text round trips byte for byte", arguments: [
        "", "plain", "café", "cafe\u{301}", "食費", "👩‍👩‍👧‍👦🇫🇷", "tab\tnewline\n", "quote ' and \" and ?1 and ;",
        "Robert'); DROP TABLE v;--", String(repeating: "x", count: 100_000),
    ])
    func text(value: String) throws {
        let db = try Self.database()
        try db.prepare("INSERT INTO v (value) VALUES (?1)").run([.text(value)])
        let row = try db.prepare("SELECT value, typeof(value), length(CAST(value AS BLOB)) FROM v").first {
            ($0.text(0), $0.text(1), $0.int(2))
        }
        #expect(row.map { Array($0.0.utf8) } == Array(value.utf8))
        #expect(row?.1 == "text")
        #expect(row?.2 == value.utf8.count)
        #expect(try db.prepare("SELECT count(*) FROM v").first { $0.int(0) } == 1)
    }

    @Test("blobs round trip, the empty blob and NUL bytes included", arguments: [
        [UInt8](), [0], [0, 0, 0], [0xFF, 0x00, 0x7F, 0x80], Array((0...255).map { UInt8($0) }),
    ])
    func blobs(bytes: [UInt8]) throws {
        let db = try Self.database()
        try db.prepare("INSERT INTO v (value) VALUES (?1)").run([.blob(bytes)])
        let row = try db.prepare("SELECT value, typeof(value) FROM v").first { ($0.blob(0), $0.text(1), $0.isNull(0)) }
        #expect(row?.0 == bytes)
        #expect(row?.1 == "blob")
        #expect(row?.2 == false)
    }

    @Test("null binds and reads as NULL")
    func nulls() throws {
        let db = try Self.database()
        try db.prepare("INSERT INTO v (value) VALUES (?1)").run([nil])
        try db.prepare("INSERT INTO v (value) VALUES (?1)").run([SQLiteValue(nil as String?)])
        try db.prepare("INSERT INTO v (value) VALUES (?1)").run([SQLiteValue(nil as Int64?)])
        let rows = try db.prepare("SELECT value FROM v").map { ($0.isNull(0), $0.optionalText(0), $0.int64(0), $0.blob(0)) }
        #expect(rows.count == 3)
        for row in rows {
            #expect(row.0 && row.1 == nil && row.2 == 0 && row.3 == [])
        }
    }

    @Test("value conveniences", arguments: [
        (SQLiteValue(true), SQLiteValue.integer(1)), (SQLiteValue(false), .integer(0)), (SQLiteValue(7 as Int), .integer(7)),
        (SQLiteValue("s" as String?), .text("s")), (SQLiteValue(5 as Int64?), .integer(5)), (12, .integer(12)),
        ("lit", .text("lit")),
    ])
    func conveniences(value: SQLiteValue, expected: SQLiteValue) {
        #expect(value == expected)
    }

    @Test("several parameters bind in order; rebinding a reused statement starts afresh")
    func rebinding() throws {
        let db = try Self.database()
        let insert = try db.prepare("INSERT INTO v (k, value) VALUES (?1, ?2)")
        try insert.run([1, "one"])
        try insert.run([2, .blob([2])])
        try insert.run([3])  // ?2 left unbound after clear_bindings: NULL, not the previous "one"
        let rows = try db.prepare("SELECT k, typeof(value) FROM v ORDER BY k").map { "\($0.int(0)):\($0.text(1))" }
        #expect(rows == ["1:text", "2:blob", "3:null"])
        let select = try db.prepare("SELECT k FROM v WHERE k >= ?1 ORDER BY k")
        #expect(try select.map([2]) { $0.int(0) } == [2, 3])
        #expect(try select.map([3]) { $0.int(0) } == [3])
        #expect(try select.first([9]) { $0.int(0) } == nil)
        // Stopping after the first row and querying again works (the statement was reset).
        #expect(try select.first([1]) { $0.int(0) } == 1)
        #expect(try select.map([1]) { $0.int(0) } == [1, 2, 3])
    }

    @Test("step walks the rows by hand")
    func stepping() throws {
        let db = try Self.database()
        try db.execute("INSERT INTO v (k, value) VALUES (1, 10), (2, 20)")
        let statement = try db.prepare("SELECT value FROM v ORDER BY k").bind([])
        #expect(try statement.step())
        #expect(SQLiteValue.integer(10) == .integer(10))
        #expect(try statement.step())
        #expect(try !statement.step())
    }

    @Test("an error thrown inside forEach stops the walk and leaves the statement reusable")
    func errorInsideForEach() throws {
        struct Stop: Error {}
        let db = try Self.database()
        try db.execute("INSERT INTO v (k, value) VALUES (1, 1), (2, 2), (3, 3)")
        let select = try db.prepare("SELECT k FROM v ORDER BY k")
        var seen: [Int] = []
        #expect(throws: Stop.self) {
            try select.forEach { row in
                seen.append(row.int(0))
                if row.int(0) == 2 { throw Stop() }
            }
        }
        #expect(seen == [1, 2])
        #expect(try select.map { $0.int(0) } == [1, 2, 3])
    }

    @Test("binding more values than parameters is an error with SQLite's code")
    func tooManyValues() throws {
        let db = try Self.database()
        let error = #expect(throws: SQLiteError.self) {
            try db.prepare("INSERT INTO v (value) VALUES (?1)").run([1, 2])
        }
        #expect(error?.code.primaryResultCode == .range)
    }

    @Test("a constraint error from step carries the extended code")
    func constraintFromStep() throws {
        let db = try Self.database()
        let insert = try db.prepare("INSERT INTO v (k, value) VALUES (?1, ?2)")
        try insert.run([1, 1])
        let error = #expect(throws: SQLiteError.self) { try insert.run([1, 2]) }
        #expect(error?.code == .constraintPrimaryKey)
        #expect(error?.message.contains("UNIQUE constraint failed") == true)
        try insert.run([2, 2])  // still usable
    }
}

@Suite("SQLiteStatement text with NUL")
struct SQLiteTextNULTests {
    /// Swift strings may hold U+0000; the wrapper must not cut the text at it silently.
    @Test("text containing NUL round trips whole", arguments: ["a\u{0}b", "\u{0}", "end\u{0}", "\u{0}\u{0}x"])
    func nul(value: String) throws {
        let db = try SQLiteStatementTests.database()
        try db.prepare("INSERT INTO v (value) VALUES (?1)").run([.text(value)])
        let stored = try db.prepare("SELECT value, length(CAST(value AS BLOB)) FROM v").first { ($0.text(0), $0.int(1)) }
        #expect(stored.map { Array($0.0.utf8) } == Array(value.utf8))
        #expect(stored?.1 == value.utf8.count)
    }
}
