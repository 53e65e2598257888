import TestSupport
import ExpenseCore
import Foundation
import SQLite
import Testing
@testable import ExpenseClient

/// A new cache is made with pages of ``SQLiteExpenseStore/newCachePageSize``; a cache made by an earlier version
/// with SQLite's default 4 KiB pages opens, keeps its pages and its rows, and takes writes.
@Suite struct CachePageSizeTests {
    static func pageSize(_ path: String) throws -> Int64? {
        try SQLiteConnection(path: path, mode: .readOnly).prepare("PRAGMA page_size").first { $0.int64(0) }
    }

    @Test func aNewCacheHasSixteenKiBPages() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/cache.sqlite"
        do { _ = try SQLiteExpenseStore(path: path) }
        #expect(try Self.pageSize(path) == Int64(SQLiteExpenseStore.newCachePageSize))
    }

    @Test func aCacheWithFourKiBPagesKeepsThemAndItsRows() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/cache.sqlite"
        let id = UUID()
        do {
            // What an earlier version made: the migrations on SQLite's default page size.
            let connection = try SQLiteConnection(path: path, mode: .create)
            try connection.execute("PRAGMA journal_mode=WAL")
            try SQLiteExpenseStore.defineFunctions(on: connection)
            try connection.migrate(SQLiteExpenseStore.migrations)
            try connection.prepare("""
                INSERT INTO expense(position, id, amount, currency, category, day, note, base_version, deleted, seq)
                VALUES (1, ?1, 1250, 'USD', 'food', 20261201, '', 1, 0, 1)
                """).run([.id(id)])
        }
        #expect(try Self.pageSize(path) == 4_096)
        do {
            let store = try SQLiteExpenseStore(path: path)
            #expect(try store.record(id: id)?.expense.amount == 1250)
            let edited = LocalRecord(expense: try #require(try store.record(id: id)).expense, baseVersion: 2)
            try store.write { try $0.putRecord(edited) }
            #expect(try store.record(id: id)?.baseVersion == 2)
        }
        #expect(try Self.pageSize(path) == 4_096)
    }
}
