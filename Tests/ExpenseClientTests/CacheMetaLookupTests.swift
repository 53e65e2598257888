import ExpenseCore
import Foundation
import SQLite
import Testing
import TestSupport
@testable import ExpenseClient

/// The cache's `meta` table holds a few small settings and one large value, the ids of the last import (about
/// 39 bytes per imported expense). Reading any setting must not read that value: in a table whose rows are its
/// key's B-tree (`WITHOUT ROWID`), looking a key up compares it with the large row and reads all of its
/// overflow pages, so every command (an `add` reads a dozen settings) read megabytes after a large import.
@Suite struct CacheMetaLookupTests {
    /// Bytes this thread has read through `read`/`pread` so far (`rchar` of `/proc/thread-self/io`): what SQLite
    /// reads from its file, wherever the kernel finds it.
    static func bytesReadByThisThread() throws -> Int {
        let text = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
        let line = text.split(separator: "\n").first { $0.hasPrefix("rchar:") }
        return Int(line?.split(separator: " ").last ?? "") ?? 0
    }

    @Test("reading a setting does not read the last import's ids")
    func aSettingIsReadWithoutTheLargeValue() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("cache.sqlite")
        let ids = (0..<100_000).map { _ in UUID().uuidString }
        do {
            let store = try SQLiteExpenseStore(path: path)
            try store.setMetaValue("[\"" + ids.joined(separator: "\",\"") + "\"]", for: .lastImport)
            try store.setMetaValue("EUR", for: .currency)
        }
        let store = try SQLiteExpenseStore(path: path)
        _ = try store.metaValue(.clientId)  // the schema and the first pages read
        let before = try Self.bytesReadByThisThread()
        // Keys on both sides of `last_import` in the key order, present and absent.
        for key: StoreMetaKey in [.currency, .clientId, .undoJournal, .lastMutationId, .pullCursor, .lastSyncTime] {
            _ = try store.metaValue(key)
        }
        let read = try Self.bytesReadByThisThread() - before
        // Six lookups of small values: a few pages each at most, never the 3.7 MB value.
        #expect(read < 512 * 1024, "six lookups read \(read) bytes")
        #expect(try store.metaValue(.currency) == "EUR")
        #expect(try store.metaValue(.lastImport)?.count == ids.count * 39 + 1)
    }

    @Test("a cache of migration 17 keeps every setting when meta gains rowids")
    func aMigration17CacheKeepsItsSettings() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("cache.sqlite")
        let settings = ["client_id": UUID().uuidString.lowercased(), "currency": "CHF", "last_import": "[\"a\",\"b\"]",
                        "undo_journal": "[]", "pull_cursor": "42"]
        do {
            let connection = try SQLiteConnection(path: path, mode: .create)
            try SQLiteExpenseStore.defineFunctions(on: connection)
            try connection.migrate(Array(SQLiteExpenseStore.migrations.prefix(17)))
            // Migration 10 leaves the expense indexes and triggers to the open that ran it.
            try SQLiteExpenseStore.rebuildIndexes(connection: connection, tables: SQLiteCacheTables(connection: connection, location: path))
            for (key, value) in settings {
                try connection.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)").run([.text(key), .text(value)])
            }
        }
        let store = try SQLiteExpenseStore(path: path)
        for key: StoreMetaKey in [.clientId, .currency, .lastImport, .undoJournal, .pullCursor] {
            #expect(try store.metaValue(key) == settings[key.rawValue], "\(key)")
        }
        let withoutRowid = try store.connection.prepare("SELECT wr FROM pragma_table_list WHERE name = 'meta'").first { $0.int64(0) }
        #expect(withoutRowid == 0)
    }
}
