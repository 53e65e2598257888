import ExpenseCore
import ExpenseProtocol
import Foundation
import PostgreSQL
import SQLite
import Testing
import TestSupport
@testable import ExpenseServer

/// Migration 14 (``SQLiteLedgerStore/creationColumnsMigration``): a record's creation is implied by its row, not
/// written as a `history` row. A ledger written before keeps its history exactly, through later changes and
/// compactions, and what it answers equals the in-memory reference's, which keeps every entry as it is.
@Suite(.offTheCooperativePool) struct CreationColumnsMigrationTests {
    static let time: Int64 = 1_700_000_000

    /// Applies `pushes` one by one, the n-th at `time + 60 n` (history's `time`, which compaction and `sinceTime` read).
    private static func apply(_ pushes: ArraySlice<(clientId: UUID, items: [PushItem], who: String?)>, to engine: LedgerEngine) throws -> [PushResult] {
        try pushes.indices.flatMap { index -> [PushResult] in
            let time = Self.time + 60 * Int64(index)
            engine.clock = { time }
            return try engine.apply([pushes[index]])
        }
    }

    /// Every history the engines answer: whole, in pages, by id, since a time, with the other kinds.
    private static func expectSameHistory(_ engine: LedgerEngine, as expected: LedgerEngine, ids: [UUID],
                                          sourceLocation: SourceLocation = #_sourceLocation) throws {
        let kinds = Set(RecordKind.allCases)
        for request in [HistoryRequest(limit: 1000), HistoryRequest(limit: 1000, kinds: kinds),
                        HistoryRequest(since: 40, limit: 1000), HistoryRequest(sinceTime: time + 60 * 50, limit: 1000, kinds: kinds),
                        HistoryRequest(sinceTime: time + 60 * 135, limit: 1000)] {
            #expect(try engine.history(request) == expected.history(request), sourceLocation: sourceLocation)
        }
        var cursor: Int64 = 0, pages = 0
        while true {
            let request = HistoryRequest(since: cursor, limit: 7, kinds: kinds)
            let page = try engine.history(request)
            #expect(page == (try expected.history(request)), "since \(cursor)", sourceLocation: sourceLocation)
            cursor = page.cursor
            pages += 1
            if !page.more || pages > 1000 { break }
        }
        for id in ids {
            for request in [HistoryRequest(id: id, limit: 1000), HistoryRequest(id: id, since: 30, limit: 2)] {
                #expect(try engine.history(request) == expected.history(request), "\(id)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func anOldLedgerKeepsItsHistoryExactlyThroughChangesAndCompactions() throws {
        let directory = try TemporaryDirectory("creation-columns")
        defer { directory.remove() }
        let path = directory.file("old.sqlite")
        try Self.migrateAndCompare { memory in
            try Self.writeOldFile(path, from: memory)
            let store = try SQLiteLedgerStore(path: path, name: "ignored", currency: .usd, verify: true)
            #expect(try store.connection.userVersion == SQLiteLedgerStore.migrations.count)
            return LedgerEngine(store: store, currency: .usd)
        } reopen: {
            LedgerEngine(store: try SQLiteLedgerStore(path: path, name: "ignored", currency: .usd), currency: .usd)
        } count: { engine, sql in
            try #require(engine.store as? SQLiteLedgerStore).connection.prepare(sql).first { $0.int64(0) } ?? 0
        }
    }

    /// The same for the PostgreSQL store (its migration 10): the ledger installed into a database before it, as that
    /// schema holds a ledger (a `history` row for every creation), then the database migrated.
    @Test(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
    func anOldPostgresLedgerKeepsItsHistoryExactlyThroughChangesAndCompactions() throws {
        // An empty schema: the comparison migrates it to before migration 10 itself.
        let schema = try PostgresTestSchema(migrations: 0)
        let connection = try schema.connect()
        try Self.migrateAndCompare { memory in
            try connection.migrate(Array(PostgresLedgerStore.migrations.prefix(10)))
            // The records as that schema held them (each optional field a column), the rest as it is still held.
            var snapshot = Self.snapshot(of: memory)
            let records = snapshot.records
            snapshot.records = []
            try PostgresLedgerStore.install(snapshot, connection: connection)
            let ledger = try #require(try connection.query("SELECT number FROM ledgers WHERE name = 'old'").first?.int64(0))
            try LegacyRecordColumns.insert(records, .separateFields, ledger: ledger, into: connection)
            try PostgresLedgerStore.prepareSchema(connection)
            #expect(try connection.query("SELECT max(version) FROM schema_version").first?.int64(0)
                    == Int64(PostgresLedgerStore.migrations.count))
            return LedgerEngine(store: try PostgresLedgerStore(connection: try schema.connect(), name: "old"),
                                currency: .usd)
        } reopen: {
            LedgerEngine(store: try PostgresLedgerStore(connection: try schema.connect(), name: "old"),
                         currency: .usd)
        } count: { _, sql in
            try connection.query(sql).first?.int64(0) ?? 0  // the schema's one ledger
        }
    }

    /// The reference takes the corpus's first half and a compaction; `open` makes a migrated ledger of its state,
    /// which must then answer every history request as the reference does, through the rest of the corpus, changes
    /// of new records in every way, compactions among the implied creations, and once reopened.
    private static func migrateAndCompare(open: (InMemoryLedgerStore) throws -> LedgerEngine, reopen: () throws -> LedgerEngine,
                                          count: (LedgerEngine, String) throws -> Int64) throws {
        var corpus = PushCorpus(seed: 11)
        let pushes = try corpus.pushes()
        let half = pushes.count / 2
        let memory = InMemoryLedgerStore()
        let reference = LedgerEngine(store: memory, currency: .usd)
        let referenceResults = try Self.apply(pushes[..<half], to: reference)
        // A compaction before the migration: entries at or below its horizon are gone from the old ledger too.
        let firstCompaction = try reference.compact(before: Self.time + 60 * 10)
        #expect(firstCompaction.entries > 0)

        let migrated = try open(memory)
        let ids = Array(memory.state.records.keys) + Array(memory.state.data.keys)
        try Self.expectSameHistory(migrated, as: reference, ids: ids)

        // The rest of the corpus edits and deletes records created before the migration and creates new ones.
        let results = try Self.apply(pushes[half...], to: migrated)
        #expect(results == (try Self.apply(pushes[half...], to: reference)))
        #expect(!referenceResults.isEmpty)
        // Records created after the migration, changed in every way: edits, deletes, restores, a create changed
        // again in its own push.
        let zed = UUID(), new = (0..<31).map { _ in UUID() }
        var next: Int64 = 0
        func id() -> Int64 { next += 1; return next }
        let creates = (0..<30).map { putItem(id(), new[$0], base: 0, fields(amount: 100 + Int64($0), category: "c\($0 % 4)", date: "2026-10-0\($0 % 9 + 1)", note: "n")) }
        let firstChanges = (0..<15).map { index in
            putItem(id(), new[index], base: 1, index % 2 == 0 ? fields(note: "edited \(index)") : fields(amount: 7, currency: "EUR", category: "moved"))
        } + (15..<20).map { deleteItem(id(), new[$0], base: 1) }
        let secondChanges = (0..<5).map { putItem(id(), new[$0], base: 2, fields(date: "2026-12-2\($0)")) }
            + [putItem(id(), new[15], base: 2, fields(note: "back")), putItem(id(), new[16], base: 2, fields(amount: 1)), deleteItem(id(), new[5], base: 2),
               putItem(id(), new[30], base: 0, lunch()), putItem(id(), new[30], base: 1, fields(category: "again")), deleteItem(id(), new[30], base: 2)]
        for (minute, items) in [(Int64(130), creates), (140, firstChanges), (150, secondChanges)] {
            let time = Self.time + 60 * minute
            for engine in [migrated, reference] { engine.clock = { time } }
            #expect(try migrated.apply([(zed, items, "zed")]) == reference.apply([(zed, items, "zed")]))
        }
        let allIds = Array(memory.state.records.keys) + Array(memory.state.data.keys)
        try Self.expectSameHistory(migrated, as: reference, ids: allIds)
        let implied = try count(migrated, "SELECT count(*) FROM records WHERE created_time IS NOT NULL")
        #expect(implied > 20, "the corpus reaches implied creations: \(implied)")

        // Compactions whose horizons fall among the implied creations remove the same entries.
        for minutes in [Int64(70), 95, 135, 145, 300] {
            let cutoff = Self.time + 60 * minutes
            #expect(try migrated.compact(before: cutoff) == reference.compact(before: cutoff), "\(minutes)")
            try Self.expectSameHistory(migrated, as: reference, ids: allIds)
        }
        try Self.expectSameHistory(try reopen(), as: reference, ids: allIds)
    }

    /// The reference's ledger as `expensed migrate` carries one.
    private static func snapshot(of memory: InMemoryLedgerStore) -> LedgerSnapshot {
        let state = memory.state
        var snapshot = LedgerSnapshot(
            name: "old", currency: .usd, identity: LedgerIdentity(ledgerId: UUID(), epoch: UUID(), epochCursor: 0), head: state.head,
            horizon: state.horizon, historyStartSeq: 0, historyStartTime: time - 60, records: Array(state.records.values),
            dataRecords: Array(state.data.values), history: state.history, clients: state.clients,
            outcomes: state.outcomes.flatMap { clientId, outcomes in
                outcomes.map { LedgerSnapshot.KeptOutcome(clientId: clientId, mutationId: $0.key, outcome: $0.value) }
            }, tokens: [], totals: state.totals)
        snapshot.sort()
        return snapshot
    }

    /// Writes the reference's state as the SQLite store wrote it before migration 14: records without creations, a
    /// `history` row for every entry (creations too) linked to the record's entry before, outcomes as runs.
    private static func writeOldFile(_ path: String, from memory: InMemoryLedgerStore) throws {
        let connection = try SQLiteConnection(path: path)
        try connection.migrate(Array(SQLiteLedgerStore.migrations.prefix(SQLiteLedgerStore.creationColumnsMigration)))
        #expect(try connection.prepare("SELECT count(*) FROM pragma_table_info('records') WHERE name = 'created_seq'")
            .first { $0.int64(0) } == 0)
        let state = memory.state
        try connection.transaction {
            try connection.execute("INSERT INTO meta (key, value) VALUES ('name', 'old'), ('currency', 'USD')")
            let records = state.records.values.sorted { $0.seq < $1.seq }
            try LegacyRecordColumns.insert(records, .separateFields, into: connection)
            for stored in state.data.values {
                try connection.cached("""
                    INSERT INTO data_records (seq, id, kind, version, deleted, fields, field_versions) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                    """).run([.integer(stored.seq), SQLiteLedgerStore.blob(stored.record.id), .text(stored.record.kind.rawValue),
                              .integer(stored.version), .integer(stored.deleted ? 1 : 0), .text(stored.fieldsText),
                              .text(stored.fieldVersionsText)])
            }
            // Each entry's link: the record's kept entry before it, or 0 (a compacted one ends a walk as a missing row does).
            var previous: [Int64: Int64] = [:], last: [UUID: Int64] = [:]
            for entry in state.history {
                previous[entry.seq] = last[entry.id] ?? 0
                last[entry.id] = entry.seq
            }
            for entry in state.history {
                try connection.cached("""
                    INSERT INTO history (seq, id, previous, version, action, changes, who, client, time, kind)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                    """).run([
                    .integer(entry.seq), SQLiteLedgerStore.blob(entry.id), .integer(previous[entry.seq] ?? 0), .integer(entry.version),
                    .integer(Int64(SQLiteLedgerStore.historyActions.firstIndex(of: entry.action) ?? 0)),
                    .text(String(decoding: entry.changesJSON, as: UTF8.self)), entry.who.map { .text($0) } ?? .null,
                    SQLiteLedgerStore.blob(entry.clientId), .integer(entry.time),
                    .integer(Int64(SQLiteLedgerStore.historyKinds.firstIndex(of: entry.kind) ?? 0)),
                ])
            }
            try connection.execute("DELETE FROM history_meta")
            for (key, value) in ["start_seq": 0, "start_time": Self.time - 60, "horizon": state.horizon] {
                try connection.cached("INSERT INTO history_meta (key, value) VALUES (?1, ?2)").run([.text(key), .integer(value)])
            }
            for (clientId, lastMutationId) in state.clients {
                try connection.cached("INSERT INTO clients (id, last_mutation_id) VALUES (?1, ?2)")
                    .run([SQLiteLedgerStore.blob(clientId), .integer(lastMutationId)])
            }
            let kept = state.outcomes.sorted { UUIDText.lowercased($0.key) < UUIDText.lowercased($1.key) }.flatMap { clientId, outcomes in
                outcomes.sorted { $0.key < $1.key }.map { LedgerSnapshot.KeptOutcome(clientId: clientId, mutationId: $0.key, outcome: $0.value) }
            }
            try SQLiteLedgerStore.appendRuns(kept, connection: connection)
        }
    }
}
