import Foundation
import SQLite
import Testing

/// ``SQLiteRowStatement`` writes exactly what as many one-row statements write, in order, whatever the count
/// (chunks of 64, the rest in powers of two), with every value kind bound as ``SQLiteStatement/bind(_:)`` binds it.
@Suite("SQLiteRowStatement")
struct SQLiteRowStatementTests {
    static func values(_ row: Int) -> [SQLiteValue] {
        let texts = ["", "café", "cafe\u{301}", "a\u{0}b", "quote ' ?1 ;"]
        return [.integer(Int64(row)), row % 3 == 0 ? .null : .text(texts[row % texts.count]),
                row % 4 == 0 ? .blob([]) : .blob([UInt8(row & 0xFF), 0, 7]), .integer(Int64.max - Int64(row))]
    }

    static func table(_ db: SQLiteConnection) throws -> [[String]] {
        try db.prepare("SELECT k, typeof(t), quote(t), typeof(b), quote(b), n FROM v ORDER BY rowid").map { row in
            (0..<6).map { row.text(Int32($0)) }
        }
    }

    @Test("the same rows as one-row inserts", arguments: [0, 1, 2, 3, 63, 64, 65, 127, 128, 500])
    func sameAsOneRowInserts(count: Int) throws {
        let schema = "CREATE TABLE v (k INTEGER PRIMARY KEY, t ANY, b ANY, n INTEGER) STRICT"
        let single = try SQLiteConnection(path: ":memory:")
        try single.execute(schema)
        for row in 0..<count { try single.prepare("INSERT INTO v (k, t, b, n) VALUES (?1, ?2, ?3, ?4)").run(Self.values(row)) }
        let many = try SQLiteConnection(path: ":memory:")
        try many.execute(schema)
        let statement = SQLiteRowStatement(connection: many, head: "INSERT INTO v (k, t, b, n)", columns: 4)
        try statement.run(count: count) { binder, row in
            for value in Self.values(row) { try binder.value(value) }
        }
        #expect(try Self.table(many) == Self.table(single))
        #expect(try Self.table(many).count == count)
    }

    /// Texts and blobs are bound from one buffer per chunk: a chunk whose texts are all empty (an empty buffer)
    /// still binds empty text, not NULL, and a run after it, with other bytes, writes its own values.
    @Test("texts and blobs bound from the chunk's buffer, empty ones included, run after run")
    func borrowedBytes() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE v (k INTEGER PRIMARY KEY, t ANY, b ANY, n ANY) STRICT")
        let insert = SQLiteRowStatement(connection: db, head: "INSERT INTO v (k, t, b, n)", columns: 4)
        try insert.run(count: 3) { binder, row in
            try binder.integer(Int64(row)); try binder.text(""); try binder.blob(UnsafeRawBufferPointer(start: nil, count: 0))
            try binder.integer(0)
        }
        try insert.run(count: 70) { binder, row in
            try binder.integer(Int64(row + 3)); try binder.text(String(repeating: "x", count: row))
            try [UInt8](repeating: UInt8(row), count: row + 1).withUnsafeBytes { try binder.blob($0) }
            try binder.text(utf8: UnsafeRawBufferPointer(start: nil, count: 0))
        }
        let rows = try db.prepare("SELECT typeof(t), t, typeof(b), hex(b), typeof(n), n FROM v ORDER BY k").map { row in
            (0..<6).map { row.text(Int32($0)) }
        }
        #expect(rows.count == 73)
        #expect(rows.prefix(3).allSatisfy { $0 == ["text", "", "blob", "", "integer", "0"] })
        for (row, values) in rows.dropFirst(3).enumerated() {
            let hex = String(repeating: String(format: "%02X", row), count: row + 1)
            #expect(values == ["text", String(repeating: "x", count: row), "blob", hex, "text", ""])
        }
    }

    @Test("a tail, a DELETE … IN (VALUES …), and an error that names the statement")
    func tailAndDeleteAndError() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE v (k INTEGER PRIMARY KEY, t ANY, b ANY, n INTEGER) STRICT")
        let upsert = SQLiteRowStatement(connection: db, head: "INSERT INTO v (k, n)", columns: 2,
                                        tail: "ON CONFLICT (k) DO UPDATE SET n = n + excluded.n")
        for _ in 0..<2 { try upsert.run(count: 70) { binder, row in try binder.integer(Int64(row)); try binder.integer(1) } }
        #expect(try db.prepare("SELECT count(*), sum(n) FROM v").first { [$0.int(0), $0.int(1)] } == [70, 140])
        let delete = SQLiteRowStatement(connection: db, head: "DELETE FROM v WHERE k IN (", columns: 1, tail: ")")
        try delete.run(count: 35) { binder, row in try binder.integer(Int64(row * 2)) }
        #expect(try db.prepare("SELECT count(*), min(k) FROM v").first { [$0.int(0), $0.int(1)] } == [35, 1])
        let insert = SQLiteRowStatement(connection: db, head: "INSERT INTO v (k, n)", columns: 2)
        #expect(throws: SQLiteError.self) {
            try insert.run(count: 3) { binder, row in try binder.integer(1); try binder.integer(Int64(row)) }
        }
    }
}
