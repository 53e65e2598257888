import Foundation
import SQLite
import Testing
import TestSupport
@testable import ExpenseClient

/// A new cache is made with the latest schema at once (``SQLiteExpenseStore/newCacheSchema``), not through the
/// migrations: both must leave the same tables, columns (names, types, defaults, order, keys), indexes and
/// triggers, or a cache made new and one brought forward would read differently.
@Suite struct NewCacheSchemaTests {
    /// What a schema holds, as SQLite describes it: each table's kind and columns, each index's table, columns
    /// and uniqueness and condition, each trigger's text (spaces folded).
    private static func shape(of connection: SQLiteConnection) throws -> [String] {
        var shape: [String] = []
        let objects = try connection.prepare("""
            SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name
            """).map { ($0.text(0), $0.text(1), $0.text(2), $0.text(3)) }
        for (type, name, table, sql) in objects {
            switch type {
            case "table":
                let withoutRowid = try connection.prepare("SELECT wr FROM pragma_table_list WHERE name = ?1")
                    .first([.text(name)]) { $0.int64(0) } ?? -1
                shape.append("table \(name) without-rowid=\(withoutRowid)")
                shape += try connection.prepare("SELECT cid, name, type, \"notnull\", coalesce(dflt_value, 'NULL'), pk FROM pragma_table_info(?1)")
                    .map([.text(name)]) { "  \($0.int64(0)) \($0.text(1)) \($0.text(2)) notnull=\($0.int64(3)) default=\($0.text(4)) pk=\($0.int64(5))" }
            case "index":
                let columns = try connection.prepare("SELECT name FROM pragma_index_info(?1) ORDER BY seqno")
                    .map([.text(name)]) { $0.text(0) }.joined(separator: ",")
                // The condition of a partial index is the text after WHERE.
                let condition = sql.range(of: " WHERE ").map { String(sql[$0.upperBound...]) } ?? ""
                shape.append("index \(name) on \(table)(\(columns)) unique=\(sql.contains("UNIQUE")) where=\(condition)")
            default:
                shape.append("\(type) \(name) on \(table): " + sql.split(whereSeparator: \.isWhitespace).joined(separator: " "))
            }
        }
        return shape
    }

    @Test func aNewCacheHasTheSchemaTheMigrationsLeave() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let migrated = directory.file("migrated.sqlite")
        do {
            let connection = try SQLiteConnection(path: migrated, mode: .create)
            try SQLiteExpenseStore.defineFunctions(on: connection)
            try connection.migrate(SQLiteExpenseStore.migrations)
            // The migration that dropped the expense indexes leaves them to the open that ran it.
            try SQLiteExpenseStore.rebuildIndexes(connection: connection, tables: SQLiteCacheTables(connection: connection, location: migrated))
        }
        let made = try SQLiteExpenseStore(path: directory.file("new.sqlite"))
        let brought = try SQLiteExpenseStore(path: migrated)
        #expect(try made.connection.userVersion == SQLiteExpenseStore.migrations.count)
        let expected = try Self.shape(of: brought.connection), actual = try Self.shape(of: made.connection)
        #expect(expected.count > 40)
        #expect(actual.count == expected.count)
        for (line, other) in zip(actual, expected) where line != other { Issue.record("new: \(line)\nmigrated: \(other)") }
    }

    /// A cache with a table but no version (made by hand, or by a program before versions) is not treated as new:
    /// the migrations run and refuse what they cannot bring forward, rather than the new schema failing halfway.
    @Test func aFileWithTablesButNoVersionIsMigrated() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("odd.sqlite")
        do {
            let connection = try SQLiteConnection(path: path, mode: .create)
            try connection.execute("CREATE TABLE unrelated (x INTEGER)")
        }
        let store = try SQLiteExpenseStore(path: path)
        #expect(try store.connection.userVersion == SQLiteExpenseStore.migrations.count)
        #expect(try store.connection.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'unrelated'").first { $0.int64(0) } == 1)
    }
}
