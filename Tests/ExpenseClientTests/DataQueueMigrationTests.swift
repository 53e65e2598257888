import LedgerTestSupport
import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite
import Testing
import TestSupport
@testable import ExpenseClient

/// Migration 12 of the SQLite cache: the budget, rule and setting changes the second sync engine queued in
/// `data_pending` move into the one outbox, unsent, and sync there (SQLiteExpenseStore+Schema.swift).
@Suite struct DataQueueMigrationTests {
    @Test("a cache of migration 11 keeps its queued budget, rule and setting changes in order, and they all reach the daemon")
    func queuedChangesMoveIntoTheOutboxAndSync() async throws {
        let daemon = try TestDaemon()
        let story = try await OldQueueStory.play(daemon)
        let store = try SQLiteExpenseStore(path: story.path)
        #expect(try store.connection.userVersion == SQLiteExpenseStore.migrations.count)
        #expect(try store.connection.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'data_pending'").first { $0.int(0) } == 0)

        // The expense edit first, then the six old entries in their order: kind, type, base and fields as the old
        // engine wrote them, none numbered (their numbers belonged to the other client id).
        let outbox = try store.pendingMutations(limit: 100)
        #expect(outbox.map(\.kind) == [.expense, .budget, .budget, .recurring, .recurring, .setting, .budget])
        #expect(outbox.map(\.id) == [story.expense, story.food.id, story.food.id, story.rent.id, story.rent.id,
                                     story.timezone, story.travel.id])
        #expect(outbox.map(\.type) == [.put, .put, .put, .put, .delete, .put, .put])
        #expect(outbox.map(\.baseVersion) == [1, 1, 1, 1, 1, 1, 0])
        #expect(outbox.allSatisfy { $0.state == .unsent && $0.mutationId == nil && $0.rejection == nil })
        #expect(Array(outbox.dropFirst().map(\.data)) == story.queued.map { $0.fields ?? [:] })
        #expect(outbox[0].fields == ExpenseDraft(note: "edited offline"))
        // What the person sees is unchanged by the migration.
        let data = try LedgerDataCache(store: store)
        #expect(try data.record(id: story.food.id)?.fields == story.lastFood.fields)
        #expect(try data.record(id: story.rent.id)?.deleted == true)
        #expect(try data.record(id: story.timezone)?.fields["value"] == .text("Asia/Tokyo"))
        #expect(try data.record(id: story.travel.id)?.fields == story.travel.fields)

        let ledger = LocalLedger(store: store)
        let report = try await OldQueueStory.sync(ledger, with: daemon)
        #expect(report.newConflicts == 0 && report.openConflicts == 0 && report.rejected == 0 && report.openRejections == 0, "\(report)")
        // The expense edit, the budget's two changes, the rule's two, the zone, the new budget.
        #expect(report.pending == 0 && report.pushed == 7, "\(report)")
        #expect(try ledger.pendingCount() == 0)
        #expect(try data.conflictCount() == 0)
        #expect(try store.metaValue(.pulledKinds) == "budget,member,rate,recurring,rule,setting,transfer")
        #expect(try store.connection.prepare("SELECT count(*) FROM meta WHERE key = 'data_cursor'").first { $0.int(0) } == 0)

        // The daemon holds the last value of each: both changes of the budget (the rollover of the first, the
        // amounts of the second), the rule removed, the last zone, the new budget.
        let onDaemon = try await story.daemonData(daemon)
        #expect(onDaemon[story.food.id]?.fields == story.lastFood.fields, "\(String(describing: onDaemon[story.food.id]))")
        #expect(onDaemon[story.food.id]?.version == 3)
        #expect(onDaemon[story.rent.id]?.deleted == true)
        #expect(onDaemon[story.timezone]?.fields["value"] == .text("Asia/Tokyo"))
        #expect(onDaemon[story.travel.id]?.fields == story.travel.fields && onDaemon[story.travel.id]?.deleted == false)
        #expect(try await daemon.records()[story.expense]?.expense.note == "edited offline")
        // The view is the daemon's copy now, based on its versions.
        #expect(try data.record(id: story.food.id) == LocalDataRecord(kind: .budget, id: story.food.id, fields: story.lastFood.fields,
                                                                        deleted: false, baseVersion: 3, pending: false))
        // Ann, who made the records, gets all of it.
        try await story.ann.sync(daemon)
        let annData = try LedgerDataCache(store: story.ann.ledger.store)
        #expect(try annData.record(id: story.food.id)?.fields == story.lastFood.fields)
        #expect(try annData.records(.recurring).isEmpty)
        #expect(try annData.record(id: story.timezone)?.fields["value"] == .text("Asia/Tokyo"))
        await daemon.stop()
    }

    /// The server copies migration 12 made from the old view hold this machine's queued values (the old cache
    /// kept no copy of the daemon's): discarding such a change before the first sync says that the daemon's
    /// values come with the next sync instead of claiming they show now, and that sync brings them.
    @Test func discardingACarriedOverChangeBeforeTheFirstSyncWaitsForTheDaemonsValues() async throws {
        let daemon = try TestDaemon()
        let story = try await OldQueueStory.play(daemon)
        let store = try SQLiteExpenseStore(path: story.path)
        let ledger = LocalLedger(store: store)
        let dropped = try ledger.discard(UUIDText.lowercased(story.food.id))
        #expect(dropped.kind == .budget && dropped.entries.count == 2)
        #expect(dropped.dataAwaitsSync)
        let report = try await OldQueueStory.sync(ledger, with: daemon)
        #expect(report.newConflicts == 0 && report.rejected == 0, "\(report)")
        // The food budget is the daemon's again (neither of Bob's discarded changes reached it).
        let onDaemon = try await story.daemonData(daemon)
        let data = try LedgerDataCache(store: store)
        #expect(onDaemon[story.food.id]?.version == 1)
        #expect(try data.record(id: story.food.id)?.fields == onDaemon[story.food.id]?.fields)
        #expect(try data.record(id: story.food.id)?.fields != story.lastFood.fields)
        await daemon.stop()
    }

    /// The old engine numbered its entries before sending them; a sync that died after the daemon consumed them
    /// (the first applied, the second refused as a conflict: the old engine sent both at the same base) left them
    /// queued. Sent again under the one client id, the first is applied without a change and the second on top.
    @Test("entries the daemon already consumed under the old second client id go out again without a conflict")
    func entriesConsumedUnderTheOldClientIdAreSentAgain() async throws {
        let daemon = try TestDaemon()
        let story = try await OldQueueStory.play(daemon)
        let clientId = try #require(try SQLiteConnection(path: story.path, mode: .readOnly)
            .prepare("SELECT value FROM meta WHERE key = 'client_id'").first { UUIDText.parse($0.text(0)) } ?? nil)
        // What the old engine's push of its first two entries did on the daemon, under its own client id.
        let oldClientId = NameBasedUUID.make(namespace: OldQueueStory.dataClientIdNamespace, name: NameBasedUUID.bytes(clientId))
        let mutations = story.queued.prefix(2).enumerated().map { index, entry in
            PendingMutation(type: entry.type, kind: entry.kind, id: entry.id, baseVersion: entry.base, data: entry.fields ?? [:])
                .mutation(mutationId: Int64(index + 1))
        }
        let consumed = try await daemon.ledger.push(clientId: oldClientId, items: PushRequest(mutations: mutations).items)
        guard consumed.results.count == 2, case .applied(2, _) = consumed.results[0].status,
              case .dataConflict = consumed.results[1].status else {
            Issue.record("the old engine's push is not played as it went: \(consumed)")
            return
        }

        let store = try SQLiteExpenseStore(path: story.path)
        let ledger = LocalLedger(store: store)
        let report = try await OldQueueStory.sync(ledger, with: daemon)
        #expect(report.newConflicts == 0 && report.openConflicts == 0 && report.openRejections == 0 && report.pending == 0, "\(report)")
        let onDaemon = try await story.daemonData(daemon)
        #expect(onDaemon[story.food.id]?.fields == story.lastFood.fields, "\(String(describing: onDaemon[story.food.id]))")
        #expect(onDaemon[story.food.id]?.version == 3)
        #expect(try LedgerDataCache(store: store).record(id: story.food.id)?.fields == story.lastFood.fields)
        await daemon.stop()
    }
}

/// Ann makes a budget, a rule and the ledger's time zone and syncs; Bob syncs them, then, offline, edits an
/// expense and makes budget, rule and setting changes as the second engine queued them: Bob's cache is written
/// back as migration 11 had it, those changes in `data_pending`.
private struct OldQueueStory {
    /// One `data_pending` row.
    struct Queued {
        var kind: RecordKind
        var id: UUID
        var type: MutationType
        var base: Int64
        var fields: LedgerDataFields?
        /// Numbered by the old engine under its second client id (`nil`: never sent).
        var mutationId: Int64?
    }

    /// The namespace the second engine derived its client id in (from the installation's client id).
    static let dataClientIdNamespace = UUID(uuid: (0x47, 0x1f, 0x2a, 0x90, 0x3b, 0x6e, 0x4d, 0x2c, 0x9a, 0x05, 0xe8, 0x71, 0x14,
                                                   0xc3, 0x5d, 0xb2))

    let ann: TestClient
    /// Bob's cache as migration 11 left it.
    let path: String
    private let directory: TemporaryDirectory
    let expense: UUID
    let food: Budget
    /// Food after Bob's two changes.
    let lastFood: Budget
    let rent: RecurringRule
    let timezone: UUID
    let travel: Budget
    /// The old queue, in order.
    let queued: [Queued]

    static func play(_ daemon: TestDaemon) async throws -> OldQueueStory {
        let ann = try TestClient("ann", persistent: true), bob = try TestClient("bob", persistent: true)
        let eur = try #require(Currency(code: "EUR"))
        let january = try #require(CalendarDay("2026-01-01"))
        let food = Budget(category: "food", currency: eur, period: .month, start: january, rollover: .none,
                          amounts: [BudgetAmount(from: january, amount: 10_000)])
        let rent = RecurringRule(id: UUID(), amount: 95_000, currency: eur, category: "rent", note: "", every: 1, unit: .month,
                                 start: try #require(CalendarDay("2026-11-30")), end: .never, monthEnd: .clamp, skips: [],
                                 created: 1_792_065_600)
        let timezone = LedgerSetting.id(.timezone)
        try ann.ledger.put(.budget, id: food.id, fields: food.fields)
        try ann.ledger.put(.recurring, id: rent.id, fields: rent.fields)
        try ann.ledger.put(.setting, id: timezone, fields: LedgerSetting(name: .timezone, value: "Europe/Berlin").fields)
        let expense = try ann.add(1_250, "food")
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        try bob.edit(expense.id, ExpenseDraft(note: "edited offline"))

        // Bob's changes as the old engine queued them: each put carries the fields that differ from the view,
        // based on the version the view had (1), whatever was queued before it.
        var firstFood = food
        firstFood.rollover = .positive
        firstFood.amounts = food.settingAmount(20_000, from: try #require(CalendarDay("2026-06-01")))
        var lastFood = firstFood
        lastFood.amounts = firstFood.settingAmount(30_000, from: try #require(CalendarDay("2026-09-01")))
        var skipped = rent
        skipped.skips = [try #require(CalendarDay("2026-12-30"))]
        let travel = Budget(category: "travel", currency: eur, period: .month, start: january, rollover: .none,
                            amounts: [BudgetAmount(from: january, amount: 5_000)])
        let queued = [
            Queued(kind: .budget, id: food.id, type: .put, base: 1,
                   fields: ["rollover": .text("positive"), "amounts": try #require(firstFood.fields["amounts"])], mutationId: 1),
            Queued(kind: .budget, id: food.id, type: .put, base: 1, fields: ["amounts": try #require(lastFood.fields["amounts"])],
                   mutationId: 2),
            Queued(kind: .recurring, id: rent.id, type: .put, base: 1, fields: ["skips": try #require(skipped.fields["skips"])],
                   mutationId: 3),
            Queued(kind: .recurring, id: rent.id, type: .delete, base: 1, fields: nil, mutationId: nil),
            Queued(kind: .setting, id: timezone, type: .put, base: 1, fields: ["value": .text("Asia/Tokyo")], mutationId: nil),
            Queued(kind: .budget, id: travel.id, type: .put, base: 0, fields: travel.fields, mutationId: nil),
        ]
        // The old engine's view: every local change shown, on the base it was made against.
        let views: [(RecordKind, UUID, LedgerDataFields, deleted: Bool, base: Int64)] = [
            (.budget, food.id, lastFood.fields, false, 1), (.recurring, rent.id, skipped.fields, true, 1),
            (.setting, timezone, LedgerSetting(name: .timezone, value: "Asia/Tokyo").fields, false, 1),
            (.budget, travel.id, travel.fields, false, 0),
        ]

        let directory = try TemporaryDirectory()
        let path = directory.path + "/cache.sqlite"
        let source = try #require(bob.ledger.store as? SQLiteExpenseStore).location
        let old = try SQLiteConnection(path: path, mode: .create)
        try SQLiteExpenseStore.defineFunctions(on: old)
        try old.migrate(Array(SQLiteExpenseStore.migrations.prefix(11)))
        // Migration 10 leaves the expense indexes and triggers to the open that ran it, as a version of 11 built them.
        try SQLiteExpenseStore.rebuildIndexes(connection: old, tables: SQLiteCacheTables(connection: old, location: path))
        try old.execute("ATTACH DATABASE '\(source)' AS source")
        try old.transaction {
            // Migration 11's tables hold what this version's do (ids were blobs already); the outbox had no kinds.
            for table in ["expense", "server_copy", "outbox", "conflict", "data_conflict", "meta"] {
                let columns = try old.prepare("PRAGMA main.table_info(\(table))").map { $0.text(1) }.joined(separator: ", ")
                try old.execute("""
                    INSERT INTO main.\(table)(\(columns)) SELECT \(columns) FROM source.\(table)\
                    \(table == "outbox" ? " WHERE kind = 'expense'" : table == "meta" ? " WHERE key != 'pulled_kinds'" : "")
                    """)
            }
            try old.prepare("INSERT INTO meta(key, value) SELECT 'data_cursor', value FROM meta WHERE key = 'pull_cursor'").run()
            for (kind, id, fields, deleted, base) in views {
                try old.prepare("INSERT INTO data_record(id, kind, fields, deleted, base_version) VALUES (?1, ?2, ?3, ?4, ?5)")
                    .run([.id(id), .text(kind.rawValue), .text(LedgerDataCache.text(fields)), .integer(deleted ? 1 : 0), .integer(base)])
            }
            for entry in queued {
                try old.prepare("INSERT INTO data_pending(id, kind, type, base_version, fields, mutation_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
                    .run([.id(entry.id), .text(entry.kind.rawValue), .text(entry.type.rawValue), .integer(entry.base),
                          entry.fields.map { .text(LedgerDataCache.text($0)) } ?? .null, SQLiteValue(entry.mutationId)])
            }
        }
        try old.execute("DETACH DATABASE source")
        #expect(try old.userVersion == 11)
        #expect(try old.prepare("SELECT count(*) FROM outbox").first { $0.int(0) } == 1)
        return OldQueueStory(ann: ann, path: path, directory: directory, expense: expense.id, food: food, lastFood: lastFood,
                             rent: rent, timezone: timezone, travel: travel, queued: queued)
    }

    /// One sync of `ledger` (Bob's migrated cache).
    static func sync(_ ledger: LocalLedger, with daemon: TestDaemon) async throws -> SyncEngine.Report {
        var engine = SyncEngine(ledger: ledger, remote: daemon.remote)
        engine.configuration.clientName = "bob"
        engine.configuration.initialBackoff = .milliseconds(20)
        engine.configuration.timeout = .seconds(20)
        engine.configuration.connectTimeout = .seconds(20)
        return try await onOwnThread { [engine] in try engine.sync() }
    }

    /// Every budget, rule and setting the daemon holds (tombstones included), by id.
    func daemonData(_ daemon: TestDaemon) async throws -> [UUID: DataRecord] {
        let page = try await daemon.ledger.pull(PullRequest(since: 0, limit: 1000, kinds: Set(RecordKind.additional)))
        #expect(!page.more)
        return Dictionary(page.dataChanges.map { ($0.id, $0) }) { _, later in later }
    }
}
