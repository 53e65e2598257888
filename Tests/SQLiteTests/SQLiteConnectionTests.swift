import TestSupport
import CSQLite
import Foundation
import SQLite
import Testing

@Suite("SQLiteConnection")
struct SQLiteConnectionTests {
    static let schema = [
        "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
        "ALTER TABLE item ADD COLUMN amount INTEGER NOT NULL DEFAULT 0",
    ]

    @Test("opens a new file in a temporary directory and keeps data across connections")
    func openAndReopen() throws {
        let directory = try TemporaryDirectory("sqlite-tests")
        defer { directory.remove() }
        let path = directory.file("ledger.sqlite")
        do {
            let db = try SQLiteConnection(path: path)
            #expect(db.path == path)
            try db.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (7);")
        }
        #expect(FileManager.default.fileExists(atPath: path))
        let again = try SQLiteConnection(path: path, mode: .readOnly)
        #expect(try again.prepare("SELECT x FROM t").first { $0.int64(0) } == 7)
        let error = #expect(throws: SQLiteError.self) { try again.execute("INSERT INTO t VALUES (8)") }
        #expect(error?.code.primaryResultCode == .readonly)
    }

    @Test("SQLite keeps no memory statistics: after a connection allocated, sqlite3_memory_used() still reads 0")
    func memoryStatisticsAreOff() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE t (x BLOB); INSERT INTO t SELECT randomblob(4096) FROM (SELECT 1 UNION SELECT 2);")
        #expect(try db.prepare("SELECT count(*) FROM t").first { $0.int64(0) } == 2)
        #expect(sqlite3_memory_used() == 0)
    }

    @Test("opening a missing file without .create fails naming the file")
    func missingFile() throws {
        let directory = try TemporaryDirectory("sqlite-tests")
        defer { directory.remove() }
        let path = directory.file("absent.sqlite")
        for mode in [SQLiteConnection.Mode.readWrite, .readOnly] {
            let error = #expect(throws: SQLiteError.self) { _ = try SQLiteConnection(path: path, mode: mode) }
            #expect(error?.code.primaryResultCode == .cantopen)
            #expect(error?.path == path)
            #expect(error?.description.contains(path) == true)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("migrate runs forward from any version and records it in user_version")
    func migrateForward() throws {
        let directory = try TemporaryDirectory("sqlite-tests")
        defer { directory.remove() }
        let path = directory.file("m.sqlite")
        do {
            let db = try SQLiteConnection(path: path)
            #expect(try db.userVersion == 0)
            try db.migrate(Array(Self.schema.prefix(1)))
            #expect(try db.userVersion == 1)
            try db.prepare("INSERT INTO item (name) VALUES (?1)").run(["kept"])
        }
        let db = try SQLiteConnection(path: path)
        try db.migrate(Self.schema)
        #expect(try db.userVersion == 2)
        try db.migrate(Self.schema)  // idempotent
        #expect(try db.userVersion == 2)
        #expect(try db.prepare("SELECT name, amount FROM item").map { "\($0.text(0)) \($0.int64(1))" } == ["kept 0"])
    }

    @Test("a failing migration leaves the schema and version as they were")
    func failingMigration() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.migrate(Self.schema)
        let error = #expect(throws: SQLiteError.self) {
            try db.migrate(Self.schema + ["CREATE TABLE extra (x); THIS IS NOT SQL"])
        }
        #expect(error?.code.primaryResultCode == .error)
        #expect(try db.userVersion == 2)
        #expect(try db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'extra'").first { $0.int(0) } == 0)
    }

    @Test("migrate refuses a file newer than the program")
    func migrateRefusesNewer() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("PRAGMA user_version = 3")
        let error = #expect(throws: SQLiteError.self) { try db.migrate(Self.schema) }
        #expect(error?.message.contains("newer") == true)
        #expect(try db.userVersion == 3)
    }

    @Test("cached returns the same prepared statement for the same SQL")
    func cachedReuse() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.migrate(Self.schema)
        let insert = try db.cached("INSERT INTO item (name, amount) VALUES (?1, ?2)")
        #expect(try db.cached("INSERT INTO item (name, amount) VALUES (?1, ?2)") === insert)
        #expect(try db.cached("SELECT 1") !== insert)
        for index in 0..<100 {
            try db.cached("INSERT INTO item (name, amount) VALUES (?1, ?2)").run([.text("n\(index)"), .integer(Int64(index))])
        }
        #expect(try db.cached("SELECT count(*), sum(amount) FROM item").first { [$0.int64(0), $0.int64(1)] } == [100, 4950])
    }

    @Test("transaction commits on success and rolls back on a thrown error")
    func transaction() throws {
        struct Boom: Error {}
        let db = try SQLiteConnection(path: ":memory:")
        try db.migrate(Self.schema)
        let value = try db.transaction { () throws -> Int in
            try db.cached("INSERT INTO item (name) VALUES (?1)").run(["a"])
            return 42
        }
        #expect(value == 42)
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.cached("INSERT INTO item (name) VALUES (?1)").run(["b"])
                throw Boom()
            }
        }
        // A constraint failure inside the body rolls back the earlier insert too.
        let error = #expect(throws: SQLiteError.self) {
            try db.transaction {
                try db.cached("INSERT INTO item (name) VALUES (?1)").run(["c"])
                try db.cached("INSERT INTO item (name) VALUES (?1)").run(["a"])
            }
        }
        #expect(error?.code == .constraintUnique)
        #expect(error?.code.primaryResultCode == .constraint)
        #expect(try db.prepare("SELECT name FROM item ORDER BY name").map { $0.text(0) } == ["a"])
        // And the connection is usable for another transaction afterwards.
        try db.transaction { try db.cached("INSERT INTO item (name) VALUES (?1)").run(["d"]) }
        #expect(try db.prepare("SELECT count(*) FROM item").first { $0.int(0) } == 2)
    }

    @Test("transactions do not nest: the inner BEGIN fails and the whole outer transaction rolls back")
    func nestedTransaction() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.migrate(Self.schema)
        #expect(throws: SQLiteError.self) {
            try db.transaction {
                try db.cached("INSERT INTO item (name) VALUES (?1)").run(["outer"])
                try db.transaction { try db.cached("INSERT INTO item (name) VALUES (?1)").run(["inner"]) }
            }
        }
        #expect(try db.prepare("SELECT count(*) FROM item").first { $0.int(0) } == 0)
        try db.transaction { try db.cached("INSERT INTO item (name) VALUES (?1)").run(["after"]) }
        #expect(try db.prepare("SELECT count(*) FROM item").first { $0.int(0) } == 1)
    }

    @Test("check() is nil on a sound database")
    func checkGood() throws {
        let directory = try TemporaryDirectory("sqlite-tests")
        defer { directory.remove() }
        let db = try SQLiteConnection(path: directory.file("good.sqlite"))
        try db.migrate(Self.schema)
        #expect(try db.check() == nil)
        #expect(try db.check(full: true) == nil)
    }

    @Test("a file of garbage bytes is reported as corruption naming the file", arguments: [
        Array("this is not a database, just text that someone saved here\n".utf8),
        (0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) },
    ])
    func garbageFile(bytes: [UInt8]) throws {
        let directory = try TemporaryDirectory("sqlite-tests")
        defer { directory.remove() }
        let path = directory.file("garbage.sqlite")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: SQLiteError.self) {
            let db = try SQLiteConnection(path: path)
            _ = try db.check()
        }
        #expect(error?.isCorruption == true)
        #expect(error?.code == .notadb)
        #expect(error?.description.contains(path) == true)
        // Nothing was written over the garbage.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))
    }

    @Test("a truncated database is reported, never read as an empty or shorter table")
    func truncatedFile() throws {
        let directory = try TemporaryDirectory("sqlite-tests")
        defer { directory.remove() }
        let path = directory.file("truncated.sqlite")
        do {
            let db = try SQLiteConnection(path: path)
            try db.migrate(Self.schema)
            try db.transaction {
                for index in 0..<3_000 {
                    try db.cached("INSERT INTO item (name, amount) VALUES (?1, ?2)").run([.text("item \(index) with some padding"), .integer(Int64(index))])
                }
            }
        }
        let url = URL(fileURLWithPath: path)
        let whole = try Data(contentsOf: url)
        try whole.prefix(whole.count / 2).write(to: url)
        // Either check() throws a corruption error or it returns SQLite's report: never nil.
        do {
            let db = try SQLiteConnection(path: path)
            let report = try db.check()
            #expect(report != nil)
        } catch let error as SQLiteError {
            #expect(error.isCorruption, "\(error)")
            #expect(error.description.contains(path))
        }
    }

    @Test("backup(to:) copies the data into a new file")
    func backup() throws {
        let directory = try TemporaryDirectory("sqlite-tests")
        defer { directory.remove() }
        let source = try SQLiteConnection(path: directory.file("source.sqlite"))
        try source.migrate(Self.schema)
        try source.transaction {
            for index in 0..<2_000 {
                try source.cached("INSERT INTO item (name, amount) VALUES (?1, ?2)").run([.text("item \(index)"), .integer(Int64(index))])
            }
        }
        let copyPath = directory.file("copy.sqlite")
        try source.backup(to: copyPath)
        let copy = try SQLiteConnection(path: copyPath, mode: .readOnly)
        #expect(try copy.userVersion == 2)
        #expect(try copy.check() == nil)
        #expect(try copy.prepare("SELECT count(*), sum(amount) FROM item").first { [$0.int64(0), $0.int64(1)] } == [2_000, 1_999_000])
    }

    @Test("errors carry SQLite's code, message and the SQL")
    func errorContents() throws {
        let db = try SQLiteConnection(path: ":memory:")
        let prepareError = #expect(throws: SQLiteError.self) { _ = try db.prepare("SELEKT 1") }
        #expect(prepareError?.code.primaryResultCode == .error)
        #expect(prepareError?.message.contains("syntax error") == true)
        #expect(prepareError?.sql == "SELEKT 1")
        #expect(prepareError?.path == ":memory:")
        #expect(prepareError?.description.contains(":memory:") == true)
        let missing = #expect(throws: SQLiteError.self) { try db.execute("SELECT * FROM nowhere") }
        #expect(missing?.message.contains("no such table: nowhere") == true)
        #expect(missing?.isCorruption == false)
        #expect(missing?.code.primaryResultCode == .error)
    }
}
