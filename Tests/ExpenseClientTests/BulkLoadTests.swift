import TestSupport
@testable import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing

/// The SQLite store's bulk load for a first sync into an empty cache: indexes dropped, rows appended,
/// indexes rebuilt at the end (or at the next open when the sync was interrupted).
@Suite struct BulkLoadTests {
    private func record(_ id: UUID, amount: Int64, version: Int64, seq: Int64, deleted: Bool = false) throws -> Record {
        let day = try #require(CalendarDay("2024-03-0\(seq % 9 + 1)"))
        return Record(expense: Expense(id: id, amount: amount, currency: .usd, category: "food", date: day, note: "n\(seq)"),
                      version: version, seq: seq, deleted: deleted)
    }

    @Test func anIdPulledTwiceKeepsItsNewestVersion() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteExpenseStore(path: directory.path + "/cache.sqlite")
        let ledger = LocalLedger(store: store)
        let (a, b) = (UUID(), UUID())
        #expect(try store.beginBulkLoad())
        try ledger.apply(pulled: [try record(a, amount: 100, version: 1, seq: 1), try record(b, amount: 200, version: 1, seq: 2)],
                         cursor: 2)
        try ledger.apply(pulled: [try record(a, amount: 999, version: 2, seq: 3)], cursor: 3)
        try store.endBulkLoad()
        #expect(try store.liveCount() == 2)
        #expect(try store.record(id: a)?.expense.amount == 999)
        #expect(try store.record(id: a)?.baseVersion == 2)
        #expect(try store.write { try $0.serverCopy(id: a) }?.version == 2)
        #expect(try ledger.pullCursor() == 3)
        #expect(try store.metaValue(.bulkLoad) == nil)
        // Indexed again: an edit of a pulled expense is an upsert on the id.
        let edited = try ledger.edit(try ledger.find(String(a.uuidString.prefix(8))), changes: ExpenseDraft(note: "changed"))
        #expect(edited.note == "changed")
        #expect(try store.pendingMutations(limit: 10).first?.baseVersion == 2)
    }

    /// A page longer than one multi-row INSERT (three of 64 rows, then 32, 16, 8 and 2), an id twice in it in
    /// different statements.
    @Test func aLongPageIsAppendedInFullAndPartialStatements() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteExpenseStore(path: directory.path + "/cache.sqlite")
        let ledger = LocalLedger(store: store)
        let twice = UUID()
        var page: [Record] = []
        for seq in Int64(1)...250 {
            let id = seq == 11 || seq == 211 ? twice : UUID()
            page.append(try record(id, amount: seq, version: seq == 211 ? 2 : 1, seq: seq, deleted: seq % 50 == 0))
        }
        #expect(try store.beginBulkLoad())
        try ledger.apply(pulled: page, cursor: 250)
        try store.endBulkLoad()
        #expect(try store.liveCount() == 249 - 5)
        #expect(try store.record(id: twice)?.expense.amount == 211)
        for record in page where record.expense.id != twice {
            let stored = try #require(try store.record(id: record.expense.id))
            #expect(stored.expense == record.expense)
            #expect(stored.deleted == record.deleted)
            #expect(stored.baseVersion == record.version)
        }
        #expect(try ledger.pullCursor() == 250)
    }

    /// Listings walk the live day index in order (no table scan, no sort), after a bulk load as after migrations.
    @Test func listingsWalkTheLiveDayIndex() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteExpenseStore(path: directory.path + "/cache.sqlite")
        #expect(try store.beginBulkLoad())
        try LocalLedger(store: store).apply(pulled: [try record(UUID(), amount: 5, version: 1, seq: 1)], cursor: 1)
        try store.endBulkLoad()
        let plan = try store.connection.prepare("""
            EXPLAIN QUERY PLAN SELECT \(SQLiteCacheTables.recordColumns) FROM expense
            WHERE deleted = 0 AND day >= ?1 AND day <= ?2 AND (?3 IS NULL OR category = ?3)
            ORDER BY day, position
            """).map { $0.text(3) }
        #expect(plan == ["SEARCH expense USING INDEX expense_live_by_day (day>? AND day<?)"])
    }

    /// The pages' commits do not checkpoint (`wal_autocheckpoint` 0 while loading); their pages are copied into
    /// the database file by a second connection beside the index build, before ``SQLiteExpenseStore/endBulkLoad()``
    /// returns, and the store checkpoints as before afterwards.
    @Test func theLoadedPagesAreCheckpointedBesideTheIndexBuild() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/cache.sqlite"
        let store = try SQLiteExpenseStore(path: path)
        func autocheckpoint() throws -> Int64? {
            try store.connection.prepare("PRAGMA wal_autocheckpoint").first { $0.int64(0) }
        }
        func fileSize() throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        }
        #expect(try autocheckpoint() == Int64(SQLiteExpenseStore.autocheckpointFrames))
        #expect(try store.beginBulkLoad())
        #expect(try autocheckpoint() == 0)
        let ledger = LocalLedger(store: store)
        for page in 0..<4 {
            let records = try (1...500).map { try record(UUID(), amount: Int64($0), version: 1, seq: Int64(page * 500 + $0)) }
            try ledger.apply(pulled: records, cursor: Int64(page * 500 + 500))
        }
        let before = try fileSize()
        try store.endBulkLoad()
        #expect(try autocheckpoint() == Int64(SQLiteExpenseStore.autocheckpointFrames))
        // 2,000 rows of about 60 bytes and their id index (about 25 bytes each) are in the file, not only in the WAL.
        #expect(try fileSize() >= before + 2_000 * 70)
        #expect(try store.liveCount() == 2_000)
    }

    /// An interruption between the build's two transactions (the id index built and committed, the rest not):
    /// the mark is still set, and the next open builds what is missing.
    @Test func aLoadInterruptedAfterItsIdIndexIsFinishedWhenTheStoreIsOpened() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/cache.sqlite"
        let a = UUID()
        do {
            let store = try SQLiteExpenseStore(path: path)
            #expect(try store.beginBulkLoad())
            try LocalLedger(store: store).apply(pulled: [try record(a, amount: 100, version: 1, seq: 1),
                                                         try record(UUID(), amount: 7, version: 1, seq: 2, deleted: true)], cursor: 2)
            try store.connection.execute("CREATE UNIQUE INDEX IF NOT EXISTS expense_by_id ON expense(id)")
        }
        let reopened = try SQLiteExpenseStore(path: path)
        #expect(try reopened.metaValue(.bulkLoad) == nil)
        #expect(try LiveDayIndexMigrationTests.indexDefinition(reopened.connection) != nil)
        #expect(try LiveDayIndexMigrationTests.plans(reopened.connection) == LiveDayIndexMigrationTests.expectedPlans)
        #expect(try reopened.liveCount() == 1)
        #expect(try reopened.record(id: a)?.expense.amount == 100)
        // The live-total triggers are back: an edit moves the total.
        let ledger = LocalLedger(store: reopened)
        _ = try ledger.edit(try ledger.find(String(a.uuidString.prefix(8))), changes: ExpenseDraft(amount: 150))
        #expect(try reopened.liveTotal(currency: .usd) == 150)
    }

    @Test func aStoreHoldingAnythingLoadsRecordByRecord() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteExpenseStore(path: directory.path + "/cache.sqlite")
        try LocalLedger(store: store).add(ExpenseDraft(amount: 150, currency: "USD", category: "food", date: "2024-03-01"))
        #expect(try store.beginBulkLoad() == false)
        try store.endBulkLoad()
    }

    @Test func anInterruptedBulkLoadIsFinishedWhenTheStoreIsOpened() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/cache.sqlite"
        let a = UUID()
        do {
            let store = try SQLiteExpenseStore(path: path)
            #expect(try store.beginBulkLoad())
            try LocalLedger(store: store).apply(pulled: [try record(a, amount: 100, version: 1, seq: 1),
                                                         try record(a, amount: 300, version: 3, seq: 2)], cursor: 2)
        }  // no endBulkLoad: the sync was interrupted
        let reopened = try SQLiteExpenseStore(path: path)
        #expect(try reopened.metaValue(.bulkLoad) == nil)
        #expect(try reopened.liveCount() == 1)
        #expect(try reopened.record(id: a)?.expense.amount == 300)
        #expect(try reopened.beginBulkLoad() == false)
        let ledger = LocalLedger(store: reopened)
        try ledger.apply(pulled: [try record(a, amount: 400, version: 4, seq: 3)], cursor: 3)
        #expect(try reopened.record(id: a)?.expense.amount == 400)
    }
}
