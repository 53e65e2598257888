import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite
import Testing
import TestSupport
@testable import ExpenseServer

/// The SQLite store keeps outcomes as an append-only log of runs and an open run per client
/// (`SQLiteLedgerStore+Outcomes.swift`): a group of single pushes writes only its clients' rows, which hold their
/// open runs, and dirties a few pages whatever the number of clients; an open run joins the log once it is full;
/// the sweep bounds the table; a file with the old per-mutation `outcomes` rows opens answering every kept outcome
/// as before; `snapshot` / `install` carry the outcomes one by one.
@Suite(.offTheCooperativePool) struct OutcomeRunLogTests {
    /// A mutation that is rejected (`invalid_amount`): it consumes its id and keeps an outcome, and writes no
    /// record, history or totals, so a group of them writes only `clients` and the outcomes.
    private static func rejected(_ mutationId: Int64) -> PushItem { putItem(mutationId, UUID(), base: 0, lunch(0)) }

    private static func count(_ store: SQLiteLedgerStore, _ sql: String, _ values: [SQLiteValue] = []) throws -> Int64 {
        try store.connection.prepare(sql).first(values) { $0.int64(0) } ?? 0
    }

    /// WAL frames (pages written) by one group of single pushes from `clients` clients, each of which first pushed
    /// 40 rejected mutations (with one row per mutation keyed by client, as before, each client's rows then fill a
    /// page of their own, and such a group dirtied one page per client).
    private static func framesOfOneGroup(clients: Int, in directory: TemporaryDirectory) throws -> (frames: Int, runs: Int64, store: SQLiteLedgerStore) {
        let path = directory.file("pages-\(clients).sqlite")
        let store = try SQLiteLedgerStore(path: path, name: "t", currency: .usd)
        let engine = LedgerEngine(store: store, currency: .usd)
        let clientIds = (0..<clients).map { _ in UUID() }
        _ = try engine.apply(clientIds.map { ($0, (1...40).map { Self.rejected(Int64($0)) }) })
        let pageSize = Int(try count(store, "PRAGMA page_size"))
        func walSize() throws -> Int { try (FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0 }
        let runsBefore = try count(store, "SELECT count(*) FROM outcome_runs")
        let before = try walSize()
        _ = try engine.apply(clientIds.map { ($0, [Self.rejected(41)]) })
        let grown = try walSize() - before
        #expect(grown > 0 && grown % (pageSize + 24) == 0, "the WAL only grew, by whole frames")
        return (grown / (pageSize + 24), try count(store, "SELECT count(*) FROM outcome_runs") - runsBefore, store)
    }

    @Test func aGroupOfSinglePushesWritesOnlyItsClientsRowsAndAFewPages() throws {
        let directory = try TemporaryDirectory("outcome-runs")
        defer { directory.remove() }
        let few = try Self.framesOfOneGroup(clients: 4, in: directory)
        let many = try Self.framesOfOneGroup(clients: 120, in: directory)
        // Each client's 40 first outcomes were more than an open run holds: one run each. The group's outcomes are
        // in the clients' rows.
        #expect(few.runs == 0 && many.runs == 0)
        let store = many.store
        #expect(try Self.count(store, "SELECT count(*) FROM outcome_runs") == 120)
        #expect(try Self.count(store, "SELECT count(*) FROM clients WHERE open_first = 41 AND open_last = 41") == 120)
        // Not one page per client (which the old per-client rows dirtied: about 120 here), only as many pages as
        // the group's bytes fill: 120 `clients` rows, each with its open run of one rejection and its message,
        // about 11 KB. Measured: 1 page for 4 clients, 6 for 120 (2 and 7 when each client also appended a run row).
        #expect(few.frames <= 4 && many.frames <= 8, "4 clients: \(few.frames) pages, 120 clients: \(many.frames) pages")
        // And every outcome of the group answers.
        for clientId in try store.connection.prepare("SELECT id FROM clients").map([], { try SQLiteLedgerStore.uuid($0.blob(0)) }) {
            guard case .rejected(let rejection)? = try store.outcome(clientId: clientId, mutationId: 41) else {
                Issue.record("no outcome for \(clientId)")
                continue
            }
            #expect(rejection.reason == "invalid_amount")
            #expect(try store.keptOutcomeCount(clientId: clientId) == 41)
        }
    }

    /// Many clients push one mutation per group, one stops early: the sweep keeps the table near the runs inside the
    /// windows (here 12 clients × 4), never the 2,400 runs appended; the one that stopped keeps its outcomes.
    /// Every outcome inside a window answers, looked up in random order; none outside does.
    @Test func theSweepBoundsTheTable() throws {
        let directory = try TemporaryDirectory("outcome-runs")
        defer { directory.remove() }
        let retention: Int64 = 4
        let store = try SQLiteLedgerStore(path: directory.file("l.sqlite"), name: "t", currency: .usd, outcomeRetention: retention)
        let engine = LedgerEngine(store: store, currency: .usd)
        let clients = (0..<12).map { _ in UUID() }
        let stopped = clients[0]
        var last: [UUID: Int64] = [:]
        var expected: [UUID: [Int64: ConsumedOutcome]] = [:]
        var largest: Int64 = 0
        for group in 0..<200 {
            let pushing = group < 3 ? clients : Array(clients.dropFirst())
            var pushes: [(clientId: UUID, items: [PushItem])] = []
            for clientId in pushing {
                let next = last[clientId, default: 0] + 1
                last[clientId] = next
                // Every third one applies, the others are rejected.
                pushes.append((clientId, [next % 3 == 0 ? putItem(next, UUID(), base: 0, lunch()) : Self.rejected(next)]))
            }
            for (push, result) in zip(pushes, try engine.apply(pushes)) {
                expected[push.clientId, default: [:]][push.items[0].mutationId] = ConsumedOutcome(result.results[0].status)
            }
            largest = max(largest, try Self.count(store, "SELECT count(*) FROM outcome_runs"))
        }
        // Inside the windows: 11 × 4 + 3. The sweep keeps at most about twice that plus one sweep's worth.
        #expect(largest <= 2 * 47 + 2 * 12 + Int64(SQLiteLedgerStore.minimumSweep), "at most \(largest) runs")
        // Its three outcomes are its open run, in its `clients` row.
        #expect(try Self.count(store, "SELECT count(*) FROM outcome_runs WHERE client = ?1", [SQLiteLedgerStore.blob(stopped)]) == 0)
        #expect(try store.keptOutcomeCount(clientId: stopped) == 3)
        var lookups: [(UUID, Int64)] = clients.flatMap { clientId in (1...last[clientId, default: 0]).map { (clientId, $0) } }
        lookups.shuffle()
        for (clientId, mutationId) in lookups {
            let inWindow = mutationId > last[clientId, default: 0] - retention
            #expect(try store.outcome(clientId: clientId, mutationId: mutationId) == (inWindow ? expected[clientId]?[mutationId] : nil))
        }
        for clientId in clients.dropFirst() { #expect(try store.keptOutcomeCount(clientId: clientId) == 4) }
    }

    /// A file written by the previous schema, with one `outcomes` row per kept outcome, opens with every kept
    /// outcome answered exactly as before, links new runs after the converted ones, and no longer has `outcomes`.
    @Test func aFileWithOutcomeRowsOpensAnsweringTheSame() throws {
        let directory = try TemporaryDirectory("outcome-runs")
        defer { directory.remove() }
        let path = directory.file("old.sqlite")
        let ann = UUID(), bob = UUID(), orphan = UUID()
        let annOutcomes = OldOutcomeRowsFixture.manyKinds()
        let bobOutcomes = OldOutcomeRowsFixture.twoApplied
        do {
            let connection = try SQLiteConnection(path: path)
            try connection.migrate(Array(SQLiteLedgerStore.migrations.prefix(SQLiteLedgerStore.outcomeRunsMigration)))
            try connection.execute("INSERT INTO meta (key, value) VALUES ('name', 'old'), ('currency', 'USD')")
            for (clientId, last) in [(ann, Int64(30)), (bob, Int64(5))] {
                try connection.cached("INSERT INTO clients (id, last_mutation_id) VALUES (?1, ?2)").run([SQLiteLedgerStore.blob(clientId), .integer(last)])
            }
            for (clientId, outcomes) in [(ann, annOutcomes), (bob, bobOutcomes), (orphan, bobOutcomes)] {
                for (mutationId, outcome) in outcomes { try Self.insertOldRow(connection, clientId, mutationId, outcome) }
            }
        }
        let store = try SQLiteLedgerStore(path: path, name: "ignored", currency: .usd, verify: true, outcomeRetention: 25)
        #expect(try store.connection.userVersion == SQLiteLedgerStore.migrations.count)
        #expect(try Self.count(store, "SELECT count(*) FROM sqlite_master WHERE name = 'outcomes'") == 0)
        for mutationId in Int64(1)...31 {
            #expect(try store.outcome(clientId: ann, mutationId: mutationId) == (mutationId > 5 ? annOutcomes[mutationId] : nil), "\(mutationId)")
        }
        for mutationId in Int64(1)...5 { #expect(try store.outcome(clientId: bob, mutationId: mutationId) == bobOutcomes[mutationId]) }
        #expect(try store.outcome(clientId: orphan, mutationId: 1) == nil)
        #expect(try store.keptOutcomeCount(clientId: ann) == 24)

        // A push after the conversion: its run links to the converted ones; a duplicate answers from either.
        let engine = LedgerEngine(store: store, currency: .usd)
        let results = try engine.push(clientId: ann, items: [putItem(31, UUID(), base: 0, lunch()), putItem(10, UUID(), base: 0, lunch()),
                                                             putItem(31, UUID(), base: 0, lunch())]).results.map(\.status)
        #expect(results == [.applied(version: 1, seq: 1), .duplicate(original: .rejected(MutationRejection(
            reason: "invalid_note", field: "note", message: "trop long: é🙂 10"))), .duplicate(original: .applied(version: 1, seq: 1))])
        let reopened = try SQLiteLedgerStore(path: path, name: "ignored", currency: .usd, outcomeRetention: 25)
        for mutationId in Int64(1)...31 {
            let expected = mutationId == 31 ? .applied(version: 1, seq: 1) : annOutcomes[mutationId]
            #expect(try reopened.outcome(clientId: ann, mutationId: mutationId) == (mutationId > 6 ? expected : nil), "\(mutationId)")
        }
    }

    /// One row of migration 2's `outcomes`, as the store wrote them before migration 7.
    private static func insertOldRow(_ connection: SQLiteConnection, _ clientId: UUID, _ mutationId: Int64, _ outcome: ConsumedOutcome) throws {
        var values: [SQLiteValue] = [.integer(0), .null, .null, .null, .null, .null, .null]
        switch outcome {
        case .applied(let version, let seq):
            values[1] = .integer(version)
            values[2] = .integer(seq)
        case .conflict(let id):
            values[0] = .integer(1)
            values[3] = SQLiteLedgerStore.blob(id)
        case .rejected(let rejection):
            values[0] = .integer(2)
            values[4] = .text(rejection.reason)
            values[5] = rejection.field.map { .text($0) } ?? .null
            values[6] = .text(rejection.message)
        }
        try connection.cached("""
            INSERT INTO outcomes (client, mutation_id, status, version, seq, record, reason, field, message)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """).run([SQLiteLedgerStore.blob(clientId), .integer(mutationId)] + values)
    }

    /// `expensed migrate`'s two halves: the outcomes inside the windows, one by one, into a new file and back.
    @Test func aSnapshotCarriesTheKeptOutcomes() throws {
        let directory = try TemporaryDirectory("outcome-runs")
        defer { directory.remove() }
        let store = try SQLiteLedgerStore(path: directory.file("a.sqlite"), name: "t", currency: .usd, outcomeRetention: 10)
        let engine = LedgerEngine(store: store, currency: .usd)
        let ann = UUID(), bob = UUID(), id = UUID()
        _ = try engine.push(clientId: ann, items: (1...8).map { putItem(Int64($0), UUID(), base: 0, lunch()) } + [putItem(9, id, base: 0, lunch())])
        _ = try engine.push(clientId: bob, items: [putItem(1, id, base: 1, fields(amount: 5)), Self.rejected(2)])
        _ = try engine.push(clientId: ann, items: [putItem(10, id, base: 1, fields(amount: 7)), Self.rejected(11), Self.rejected(12)])
        let snapshot = try store.snapshot()
        #expect(snapshot.outcomes.filter { $0.clientId == ann }.map(\.mutationId) == Array(3...12))
        #expect(snapshot.outcomes.count == 12)
        try SQLiteLedgerStore.install(snapshot, intoNewFile: directory.file("b.sqlite"))
        let installed = try SQLiteLedgerStore(path: directory.file("b.sqlite"), name: "t", currency: .usd, outcomeRetention: 10)
        #expect(try installed.snapshot().outcomes == snapshot.outcomes)
        for (clientId, last) in [(ann, Int64(12)), (bob, Int64(2))] {
            for mutationId in 1...last {
                #expect(try installed.outcome(clientId: clientId, mutationId: mutationId) == store.outcome(clientId: clientId, mutationId: mutationId))
            }
        }
    }

    /// A run or an open run whose bytes were changed behind the daemon's back: the lookup throws a storage error,
    /// never traps.
    @Test func aDamagedRunThrowsAStorageError() throws {
        let directory = try TemporaryDirectory("outcome-runs")
        defer { directory.remove() }
        let path = directory.file("l.sqlite")
        let ann = UUID()
        do {
            let engine = LedgerEngine(store: try SQLiteLedgerStore(path: path, name: "t", currency: .usd), currency: .usd)
            // More than an open run holds (a run row), then one outcome (the open run).
            _ = try engine.push(clientId: ann, items: (1...40).map { Self.rejected(Int64($0)) })
            _ = try engine.push(clientId: ann, items: [Self.rejected(41)])
        }
        let connection = try SQLiteConnection(path: path)
        #expect(try connection.prepare("SELECT count(*) FROM outcome_runs").first { $0.int64(0) } == 1)
        try connection.execute("UPDATE outcome_runs SET outcomes = substr(outcomes, 1, length(outcomes) - 3)")
        let store = try SQLiteLedgerStore(path: path, name: "t", currency: .usd)
        #expect(throws: LedgerError.self) { try store.outcome(clientId: ann, mutationId: 2) }
        try connection.execute("UPDATE clients SET open_outcomes = substr(open_outcomes, 1, length(open_outcomes) - 3)")
        #expect(throws: LedgerError.self) { try SQLiteLedgerStore(path: path, name: "t", currency: .usd).outcome(clientId: ann, mutationId: 41) }
        try connection.execute("UPDATE clients SET open_outcomes = NULL, open_first = 0, open_last = 0")
        try connection.execute("UPDATE outcome_runs SET previous = run")
        let again = try SQLiteLedgerStore(path: path, name: "t", currency: .usd)
        #expect(throws: LedgerError.self) { try again.keptOutcomeCount(clientId: ann) }
    }

    /// Single pushes of creates: every 32nd moves the open run to the log, as one run of 32 consecutive outcomes
    /// linked to the one before; every outcome answers, from the log and from the open run, in one store and in
    /// the file reopened; a snapshot carries them all.
    @Test func aFullOpenRunJoinsTheLog() throws {
        let directory = try TemporaryDirectory("outcome-runs")
        defer { directory.remove() }
        let path = directory.file("l.sqlite")
        let ann = UUID()
        let store = try SQLiteLedgerStore(path: path, name: "t", currency: .usd)
        let engine = LedgerEngine(store: store, currency: .usd)
        var expected: [Int64: ConsumedOutcome] = [:]
        for mutationId in Int64(1)...70 {
            let result = try engine.push(clientId: ann, items: [putItem(mutationId, UUID(), base: 0, lunch())])
            expected[mutationId] = ConsumedOutcome(result.results[0].status)
        }
        let runs = try store.connection.prepare("SELECT first_mutation_id, last_mutation_id FROM outcome_runs ORDER BY run")
            .map([]) { [$0.int64(0), $0.int64(1)] }
        let limit = Int64(OpenOutcomeRun.maximumCount)
        #expect(runs == [[1, limit + 1], [limit + 2, 2 * limit + 2]])
        #expect(try Self.count(store, "SELECT open_first FROM clients") == 2 * limit + 3)
        #expect(try Self.count(store, "SELECT open_last FROM clients") == 70)
        try store.backup(to: directory.file("copy.sqlite"))
        let copy = try SQLiteLedgerStore(path: directory.file("copy.sqlite"), name: "t", currency: .usd)
        for mutationId in Int64(1)...70 {
            #expect(try store.outcome(clientId: ann, mutationId: mutationId) == expected[mutationId])
            #expect(try copy.outcome(clientId: ann, mutationId: mutationId) == expected[mutationId])
        }
        #expect(try store.keptOutcomeCount(clientId: ann) == 70)
        #expect(try copy.snapshot().outcomes.map(\.mutationId) == Array(1...70))
    }
}
