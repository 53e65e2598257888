import CSQLite
import Foundation
@testable import SQLite
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

    /// A parameter that holds the empty text or 0 keeps it from one chunk and one run to the next without being
    /// bound again; any other value bound there replaces it, whether the run cleared its bindings (a text copied)
    /// or not (only integers and empty texts), as one-row inserts of the same values write.
    @Test("empty texts and zeros kept between chunks and runs, and replaced by any other value", arguments: [0, 1, 2, 3, 4])
    func heldValuesKeptBetweenRuns(pattern: Int) throws {
        func value(_ run: Int, _ row: Int) -> SQLiteValue {
            switch (pattern, run) {
            case (0, _): return row % 97 == 5 ? .text("x\(row)") : .text("")
            case (1, 1): return row % 2 == 0 ? .integer(Int64(row)) : .null
            case (1, _): return .text("")
            case (2, _): return row % 89 == 3 ? .integer(Int64(row)) : .integer(0)
            case (3, 2): return .text("")
            case (3, _): return .integer(0)
            default:
                return [SQLiteValue.text(""), .text(""), .null, .integer(7), .text("y"), .blob([]), .integer(0), .integer(0),
                        .text("")][(row + run) % 9]
            }
        }
        let counts = [130, 64, 7, 200, 1]
        let schema = "CREATE TABLE v (k INTEGER PRIMARY KEY, r INTEGER, t ANY, u ANY)"
        let single = try SQLiteConnection(path: ":memory:")
        try single.execute(schema)
        let many = try SQLiteConnection(path: ":memory:")
        try many.execute(schema)
        let statement = SQLiteRowStatement(connection: many, head: "INSERT INTO v (r, t, u)", columns: 3)
        for (run, count) in counts.enumerated() {
            for row in 0..<count {
                try single.prepare("INSERT INTO v (r, t, u) VALUES (?1, ?2, ?3)")
                    .run([.integer(Int64(run)), value(run, row), value(run + 1, row)])
            }
            try statement.run(count: count) { binder, row in
                try binder.integer(Int64(run))
                try binder.value(value(run, row))
                try binder.value(value(run + 1, row))
            }
        }
        let query = "SELECT r, typeof(t), quote(t), typeof(u), quote(u) FROM v ORDER BY k"
        let expected = try single.prepare(query).map { row in (0..<5).map { row.text(Int32($0)) } }
        #expect(try many.prepare(query).map { row in (0..<5).map { row.text(Int32($0)) } } == expected)
        #expect(expected.count == counts.reduce(0, +))
    }

    /// Texts and blobs bound without a copy are written as given, and once `run` returns no statement of the
    /// connection still has them bound (the buffer may be freed then).
    @Test("values bound without a copy: written as given, and no longer bound once run returns",
          arguments: [1, 63, 64, 65, 200])
    func valuesBoundWithoutACopy(count: Int) throws {
        let schema = "CREATE TABLE v (k INTEGER PRIMARY KEY, t ANY, b ANY, n INTEGER) STRICT"
        let single = try SQLiteConnection(path: ":memory:")
        try single.execute(schema)
        let many = try SQLiteConnection(path: ":memory:")
        try many.execute(schema)
        let texts = (0..<count).map { "zqx marker \($0) café" }
        for row in 0..<count {
            try single.prepare("INSERT INTO v (k, t, b, n) VALUES (?1, ?2, ?3, ?4)")
                .run([.integer(Int64(row)), .text(texts[row]), .blob(Array(texts[row].utf8.prefix(5))), .integer(7)])
        }
        let bytes = texts.map { Array($0.utf8) }
        let statement = SQLiteRowStatement(connection: many, head: "INSERT INTO v (k, t, b, n)", columns: 4)
        try statement.run(count: count) { binder, row in
            try binder.integer(Int64(row))
            try bytes[row].withUnsafeBytes { text in
                try binder.text(noCopy: text)
                try binder.blob(noCopy: UnsafeRawBufferPointer(rebasing: text.prefix(5)))
            }
            try binder.integer(7)
        }
        #expect(try Self.table(many) == Self.table(single))
        var open = sqlite3_next_stmt(many.handle, nil)
        var inserts = 0
        while let handle = open {
            let sql = sqlite3_expanded_sql(handle).map { pointer -> String in
                defer { sqlite3_free(pointer) }
                return String(cString: pointer)
            } ?? ""
            if sql.hasPrefix("INSERT INTO v") {
                inserts += 1
                #expect(!sql.contains("zqx"), "\(sql.prefix(120))")
                #expect(!sql.contains("x'"), "\(sql.prefix(120))")
            }
            open = sqlite3_next_stmt(many.handle, handle)
        }
        #expect(inserts > 0)
    }

    /// Texts and blobs bound by value are the run's own copies (``SQLiteBindArena``): a buffer the caller
    /// overwrites for every row, values larger than a quarter block, and chunks holding more than a block's worth
    /// are all written as given, in two runs of one statement (the arena reset between them).
    @Test("values bound by value: copied when bound, whatever their size, and no longer bound once run returns",
          arguments: [1, 3, 64, 65, 130])
    func valuesBoundByValueAreCopied(count: Int) throws {
        let schema = "CREATE TABLE v (k INTEGER PRIMARY KEY, t ANY, b ANY, n INTEGER) STRICT"
        func text(_ row: Int) -> [UInt8] {
            let size = [0, 5, 2_000, 10_000, 20_000, 70_000][row % 6]
            return Array("zqx \(row) ".utf8) + (0..<size).map { UInt8(ascii: "a") + UInt8(($0 + row) % 26) }
        }
        let single = try SQLiteConnection(path: ":memory:")
        try single.execute(schema)
        for round in 0..<2 {
            for row in 0..<count {
                let bytes = text(row)
                try single.prepare("INSERT INTO v (k, t, b, n) VALUES (?1, ?2, ?3, ?4)").run([
                    .integer(Int64(round * count + row)), .text(String(decoding: bytes, as: UTF8.self)),
                    .blob(row % 4 == 0 ? [] : Array(bytes.suffix(row % 7 * 3_000))), .integer(7)])
            }
        }
        let many = try SQLiteConnection(path: ":memory:")
        try many.execute(schema)
        let statement = SQLiteRowStatement(connection: many, head: "INSERT INTO v (k, t, b, n)", columns: 4)
        // One buffer for every row, overwritten before the chunk is written.
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 80_000, alignment: 1)
        defer { scratch.deallocate() }
        for round in 0..<2 {
            try statement.run(count: count) { binder, row in
                let bytes = text(row)
                scratch.copyBytes(from: bytes)
                let written = UnsafeRawBufferPointer(rebasing: scratch[0..<bytes.count])
                try binder.integer(Int64(round * count + row))
                try binder.text(utf8: written)
                try binder.blob(row % 4 == 0 ? UnsafeRawBufferPointer(start: nil, count: 0)
                                : UnsafeRawBufferPointer(rebasing: written.suffix(row % 7 * 3_000)))
                scratch.initializeMemory(as: UInt8.self, repeating: 0)
                try binder.integer(7)
            }
        }
        #expect(try Self.table(many) == Self.table(single))
        var open = sqlite3_next_stmt(many.handle, nil)
        while let handle = open {
            if let sql = sqlite3_sql(handle).map({ String(cString: $0) }), sql.hasPrefix("INSERT INTO v") {
                let expanded = sqlite3_expanded_sql(handle).map { pointer -> String in
                    defer { sqlite3_free(pointer) }
                    return String(cString: pointer)
                } ?? ""
                #expect(!expanded.contains("zqx") && !expanded.contains("x'"), "\(expanded.prefix(120))")
            }
            open = sqlite3_next_stmt(many.handle, handle)
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
