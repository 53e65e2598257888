import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite
import Testing
import TestSupport
@testable import ExpenseClient

/// Migration 10 of the SQLite cache: every id column holds the id's 16 bytes (SQLiteExpenseStore+BlobIds.swift).
@Suite struct BlobIdMigrationTests {
    /// The columns holding ids, by table.
    static let idColumns: [(table: String, column: String)] = [
        ("expense", "id"), ("server_copy", "id"), ("outbox", "expense_id"), ("conflict", "expense_id"),
        ("data_record", "id"), ("data_server_copy", "id"), ("data_conflict", "id"),
    ]

    /// `(type, length)` of every stored id, for the checks below.
    static func storedIdShapes(_ connection: SQLiteConnection) throws -> [String: Set<String>] {
        var shapes: [String: Set<String>] = [:]
        for (table, column) in idColumns {
            shapes[table] = Set(try connection.prepare("SELECT typeof(\(column)) || ' ' || length(\(column)) FROM \(table)")
                .map { $0.text(0) })
        }
        return shapes
    }

    @Test("a cache written by this version holds every id as 16 bytes")
    func newRowsHoldBlobs() async throws {
        let daemon = try TestDaemon()
        let story = try await Story.play(daemon)
        let shapes = try Self.storedIdShapes(story.bobStore.connection)
        for (table, _) in Self.idColumns {
            #expect(shapes[table] == ["blob 16"], "\(table): \(shapes[table] ?? [])")
        }
        await daemon.stop()
    }

    @Test("a cache of migration 9 keeps every row, queued change and conflict, and syncs on")
    func aMigration9CacheIsConverted() async throws {
        let daemon = try TestDaemon()
        let story = try await Story.play(daemon)
        let before = try Snapshot(story.bobStore)
        let directory = try TemporaryDirectory()
        let oldPath = directory.path + "/cache.sqlite"
        try Self.writeMigration9Copy(of: story.bobStore.location, to: oldPath)

        let migrated = try SQLiteExpenseStore(path: oldPath)
        #expect(try migrated.connection.userVersion == SQLiteExpenseStore.migrations.count)
        #expect(try migrated.metaValue(.bulkLoad) == nil)
        #expect(try Self.storedIdShapes(migrated.connection).values.allSatisfy { $0.isSubset(of: ["blob 16"]) })
        let after = try Snapshot(migrated)
        // Migration 9 queued a creation without a payer, split, amount charged, tags, parts or original text (not given: none), which is how
        // it comes back.
        var expected = before
        for index in expected.outbox.indices where expected.outbox[index].baseVersion == 0 {
            if expected.outbox[index].fields.paidBy == "" { expected.outbox[index].fields.paidBy = nil }
            if expected.outbox[index].fields.split == "" { expected.outbox[index].fields.split = nil }
            if expected.outbox[index].fields.charged == 0 { expected.outbox[index].fields.charged = nil }
            if expected.outbox[index].fields.tags == [] { expected.outbox[index].fields.tags = nil }
            if expected.outbox[index].fields.parts?.isEmpty == true { expected.outbox[index].fields.parts = nil }
            if expected.outbox[index].fields.source?.isEmpty == true { expected.outbox[index].fields.source = nil }
        }
        #expect(after == expected)
        #expect(try migrated.connection.check(full: true) == nil)
        // The indexes are back: a prefix finds its expense, an add is checked against the ids.
        let ledger = LocalLedger(store: migrated)
        #expect(try ledger.find(String(UUIDText.lowercased(story.kept).prefix(8))).expense.id == story.kept)

        // Bob's migrated cache syncs: his queued edit, delete, add and budget go out, the conflicts (an expense's
        // and a budget's) stay open until resolved.
        let bob = MigratedClient(ledger: ledger)
        let report = try await bob.sync(daemon)
        #expect(report.pushed == 4 && report.openConflicts == 2, "\(report)")
        try ledger.resolve(try ledger.conflict(String(UUIDText.lowercased(story.conflicted).prefix(8))), .mine)
        try ledger.resolve(try #require(try LedgerDataCache(store: migrated).conflictDetails().first), .theirs)
        #expect(try await bob.sync(daemon).openConflicts == 0)
        let onDaemon = try await daemon.records()
        #expect(onDaemon[story.deletedByBob]?.deleted == true)
        #expect(onDaemon[story.addedByBob]?.expense.note == "offline")
        #expect(onDaemon[story.conflicted]?.expense.category == "dining")
        let listed = Dictionary(uniqueKeysWithValues: try ledger.list().map { ($0.id, $0) })
        #expect(liveExpenses(onDaemon) == listed)
        let data = try LedgerDataCache(store: migrated)
        #expect(try ledger.pendingCount() == 0)
        #expect(try data.records(.budget).count == 2)
        await daemon.stop()
    }

    @Test("a stored id that is not a UUID fails the migration, which leaves the cache as it was")
    func aDamagedIdRollsBack() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/cache.sqlite"
        do {
            let connection = try SQLiteConnection(path: path, mode: .create)
            try connection.migrate(Array(SQLiteExpenseStore.migrations.prefix(9)))
            try connection.execute("""
                INSERT INTO expense(id, amount, currency, category, day, note, base_version, deleted, seq)
                VALUES ('\(UUIDText.lowercased(UUID()))', 5, 'USD', 'c', 20260101, '', 1, 0, 1),
                       ('not-a-uuid', 5, 'USD', 'c', 20260101, '', 1, 0, 2);
                """)
        }
        #expect(throws: StoreError.self) { try SQLiteExpenseStore(path: path) }
        let connection = try SQLiteConnection(path: path, mode: .readOnly)
        #expect(try connection.userVersion == 9)
        #expect(try connection.prepare("SELECT count(*), typeof(min(id)) FROM expense").first { "\($0.int(0)) \($0.text(1))" } == "2 text")
    }

    /// A first sync the previous version left interrupted (indexes dropped, an id appended twice): the migration
    /// converts the rows and the open finishes the bulk load, keeping the id's newest row.
    @Test("an interrupted first sync of migration 9 is converted and finished")
    func anInterruptedBulkLoadIsFinished() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/cache.sqlite"
        let twice = UUID(), other = UUID()
        do {
            let connection = try SQLiteConnection(path: path, mode: .create)
            try connection.migrate(Array(SQLiteExpenseStore.migrations.prefix(9)))
            try connection.execute("""
                DROP INDEX expense_by_id; DROP INDEX expense_live_by_day;
                DROP TRIGGER live_total_insert; DROP TRIGGER live_total_delete; DROP TRIGGER live_total_update;
                INSERT INTO meta(key, value) VALUES ('\(StoreMetaKey.bulkLoad.rawValue)', '1');
                INSERT INTO expense(id, amount, currency, category, day, note, base_version, deleted, seq) VALUES
                    ('\(UUIDText.lowercased(twice))', 100, 'USD', 'c', 20260101, '', 1, 0, 1),
                    ('\(UUIDText.lowercased(other))', 5, 'EUR', 'c', 20260101, '', 1, 0, 2),
                    ('\(UUIDText.lowercased(twice))', 300, 'EUR', 'c', 20260101, '', 2, 0, 3);
                INSERT INTO live_total(currency, high, low, count) VALUES ('USD', 0, 100, 1), ('EUR', 0, 305, 2);
                """)
        }
        let store = try SQLiteExpenseStore(path: path)
        #expect(try store.metaValue(.bulkLoad) == nil)
        #expect(try store.record(id: twice)?.expense.amount == 300)
        #expect(try store.record(id: other)?.expense.amount == 5)
        #expect(try store.liveCount() == 2)
        #expect(try store.liveTotal(currency: try #require(Currency(code: "EUR"))) == 305)
        #expect(try store.liveTotal(currency: .usd) == 0)
    }

    // MARK: - A cache of migration 9

    /// Writes the cache at `source` as migration 9 had it: the schema of migrations 0–8 (the tables, indexes and
    /// triggers that version created), every row copied with its ids as lower-case text. `live_total` is
    /// rebuilt by that schema's triggers as the expense rows go in.
    static func writeMigration9Copy(of source: String, to path: String) throws {
        let connection = try SQLiteConnection(path: path, mode: .create)
        try connection.migrate(Array(SQLiteExpenseStore.migrations.prefix(9)))
        try connection.execute("ATTACH DATABASE '\(source)' AS source")
        try connection.transaction {
            for table in ["expense", "server_copy", "outbox", "conflict", "data_record", "data_conflict", "meta"] {
                let columns = try connection.prepare("PRAGMA main.table_info(\(table))").map { $0.text(1) }
                let selected = columns.map { column in
                    idColumns.contains { $0 == (table, column) } ? text(ofBlob: "source.\(table).\(column)") : column
                }
                // Before one outbox, budget, rule and setting changes had a queue of their own (`data_pending`).
                try connection.execute("""
                    INSERT INTO main.\(table)(\(columns.joined(separator: ", ")))
                    SELECT \(selected.joined(separator: ", ")) FROM source.\(table)\(table == "outbox" ? " WHERE kind = 'expense'" : "")
                    """)
            }
            try connection.execute("""
                INSERT INTO main.data_pending(position, id, kind, type, base_version, fields, mutation_id)
                SELECT position, \(text(ofBlob: "expense_id")), kind, type, base_version, data_fields, NULL
                FROM source.outbox WHERE kind != 'expense' ORDER BY position
                """)
        }
        try connection.execute("DETACH DATABASE source")
        #expect(try connection.userVersion == 9)
    }

    /// SQL for the lower-case UUID text of a 16-byte blob column.
    private static func text(ofBlob column: String) -> String {
        let hex = "hex(\(column))"
        return "lower(substr(\(hex), 1, 8) || '-' || substr(\(hex), 9, 4) || '-' || substr(\(hex), 13, 4) || '-' || "
            + "substr(\(hex), 17, 4) || '-' || substr(\(hex), 21, 12))"
    }
}

/// Two machines, Ann (in memory) and Bob (a SQLite cache), leaving Bob with every kind of row: pulled expenses,
/// a tombstone, a server copy under a queued edit, a queued delete and add, an expense conflict, budgets pulled
/// and queued, a budget conflict.
private struct Story {
    /// Bob's machine, kept so that its temporary directory outlives the story.
    let bob: TestClient
    let bobStore: SQLiteExpenseStore
    let kept: UUID
    let conflicted: UUID
    let deletedByBob: UUID
    let addedByBob: UUID
    let editedByBob: UUID

    static func play(_ daemon: TestDaemon) async throws -> Story {
        let ann = try TestClient("ann", persistent: true), bob = try TestClient("bob", persistent: true)
        let kept = try ann.add(100, "food", note: "kept")
        let conflicted = try ann.add(200, "food", note: "conflicted")
        let tombstone = try ann.add(300, "food", note: "deleted by ann")
        let deletedByBob = try ann.add(400, "food", note: "deleted by bob")
        let editedByBob = try ann.add(500, "food", note: "edited by bob")
        let budget = try BudgetSyncStoryTests.food(30_000)
        try ann.ledger.put(.budget, id: budget.id, fields: budget.fields)
        try await ann.sync(daemon)
        try await bob.sync(daemon)

        try ann.edit(conflicted.id, ExpenseDraft(category: "meals"))
        try ann.delete(tombstone.id)
        var annBudget = budget
        annBudget.amounts = budget.settingAmount(40_000, from: try #require(CalendarDay("2026-03-01")))
        try ann.ledger.put(.budget, id: budget.id, fields: annBudget.fields)
        try await ann.sync(daemon)
        try bob.edit(conflicted.id, ExpenseDraft(category: "dining"))
        var bobBudget = budget
        bobBudget.amounts = budget.settingAmount(45_000, from: try #require(CalendarDay("2026-03-01")))
        try bob.ledger.put(.budget, id: budget.id, fields: bobBudget.fields)
        let report = try await bob.sync(daemon)
        #expect(report.newConflicts == 2 && report.openConflicts == 2, "\(report)")  // the expense and the budget

        // Offline on Bob: an edit (its server copy moves to server_copy), a delete, an add, a new budget.
        try bob.edit(editedByBob.id, ExpenseDraft(note: "edited offline"))
        try bob.delete(deletedByBob.id)
        let added = try bob.add(600, "travel", note: "offline")
        let second = Budget(category: "travel", currency: .usd, period: .month, start: try #require(CalendarDay("2026-01-01")),
                            rollover: .none, amounts: [BudgetAmount(from: try #require(CalendarDay("2026-01-01")), amount: 9_000)])
        try bob.ledger.put(.budget, id: second.id, fields: second.fields)
        let bobStore = try #require(bob.ledger.store as? SQLiteExpenseStore)
        #expect(try bobStore.connection.prepare("SELECT count(*) FROM server_copy").first { $0.int(0) } ?? 0 >= 1)
        #expect(try bobStore.record(id: tombstone.id)?.deleted == true)
        return Story(bob: bob, bobStore: bobStore, kept: kept.id, conflicted: conflicted.id, deletedByBob: deletedByBob.id,
                     addedByBob: added.id, editedByBob: editedByBob.id)
    }
}

/// Everything a cache shows and queues, compared before and after the migration.
private struct Snapshot: Equatable {
    var listing: [Expense]
    var records: [UUID: LocalRecord]
    var serverCopies: [Record]
    var outbox: [PendingMutation]
    var conflicts: [Conflict]
    var budgets: [LocalDataRecord]
    var dataConflicts: [DataConflict]
    var meta: [String: String]
    var liveCount: Int
    var usdTotal: Int64?

    init(_ store: SQLiteExpenseStore) throws {
        listing = try LocalLedger(store: store).list()
        let ids = try store.connection.prepare("SELECT id FROM expense").map { try #require($0.id(0)) }
        records = Dictionary(uniqueKeysWithValues: try ids.map { ($0, try #require(try store.record(id: $0))) })
        serverCopies = try store.write { try $0.serverCopies(seqAbove: 0) }.sorted { $0.seq < $1.seq }
        outbox = try store.pendingMutations(limit: 100)
        conflicts = try store.conflicts()
        let data = try LedgerDataCache(store: store)
        budgets = try data.records(.budget)
        dataConflicts = try data.conflictDetails()
        meta = Dictionary(uniqueKeysWithValues: try store.connection.prepare("SELECT key, value FROM meta").map { ($0.text(0), $0.text(1)) })
        liveCount = try store.liveCount()
        usdTotal = try store.liveTotal(currency: .usd)
    }
}

/// A ``TestClient``-like syncer over a given ledger (the migrated cache).
private struct MigratedClient {
    let ledger: LocalLedger

    func sync(_ daemon: TestDaemon) async throws -> SyncEngine.Report {
        var engine = SyncEngine(ledger: ledger, remote: daemon.remote)
        engine.configuration.clientName = "bob"
        engine.configuration.initialBackoff = .milliseconds(20)
        engine.configuration.timeout = .seconds(20)
        engine.configuration.connectTimeout = .seconds(20)
        return try await onOwnThread { [engine] in try engine.sync() }
    }
}
