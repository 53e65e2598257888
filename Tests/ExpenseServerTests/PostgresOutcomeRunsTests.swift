import ExpenseCore
import ExpenseProtocol
import Foundation
import PostgreSQL
import Testing
import TestSupport
@testable import ExpenseServer

/// The PostgreSQL store keeps outcomes as runs (`PostgresLedgerStore+Outcomes.swift`, migration 4) and an open run
/// per client (migration 11; `PostgresOpenOutcomeRunTests`): a group inserts at most one row per client, not one per
/// outcome, and a group of single pushes none; the rows of runs outside their client's window go in the
/// transaction that leaves them behind; a database with the old one-row-per-outcome table migrates answering
/// every kept outcome as before; `snapshot` / `install` carry the outcomes one by one.
@Suite(.offTheCooperativePool) struct PostgresOutcomeRunsTests {
    static let enabled = PostgresTestCluster.enabled
    static let reason = Comment(rawValue: PostgresTestCluster.skipReason)

    /// A rejected mutation (`invalid_amount`): it consumes its id and keeps an outcome.
    private static func rejected(_ mutationId: Int64) -> PushItem { putItem(mutationId, UUID(), base: 0, lunch(0)) }

    /// 40 outcomes are more than an open run holds: one run row per client. A single push after it adds its
    /// outcome to the client's open run, in the `clients` row, and inserts no run row.
    @Test(.enabled(if: enabled, reason))
    func aGroupInsertsAtMostOneRowPerClient() throws {
        let schema = try PostgresTestSchema()
        let store = try schema.store()
        let engine = LedgerEngine(store: store, currency: .usd)
        let clients = (0..<30).map { _ in UUID() }
        _ = try engine.apply(clients.map { ($0, (1...40).map { Self.rejected(Int64($0)) }) })
        #expect(try store.outcomeRunCount() == 30)
        _ = try engine.apply(clients.map { ($0, [putItem(41, UUID(), base: 0, lunch())]) })
        #expect(try store.outcomeRunCount() == 30)
        #expect(try schema.connect().query("SELECT count(*) FROM clients WHERE open_first = 41 AND open_last = 41")
                .first?.int64(0) == 30)
        for clientId in clients {
            #expect(try store.keptOutcomeCount(clientId: clientId) == 41)
            guard case .rejected(let rejection)? = try store.transaction({ try store.outcome(clientId: clientId, mutationId: 40) }) else {
                Issue.record("no outcome for \(clientId)")
                continue
            }
            #expect(rejection.reason == "invalid_amount")
        }
    }

    /// Clients push one or three mutations per group, one stops early: each keeps only the rows of runs holding a
    /// mutationId of its window, after every commit; every outcome inside a window answers, none outside.
    @Test(.enabled(if: enabled, reason))
    func runsOutsideTheWindowAreDeletedByTheCommitThatLeavesThemBehind() throws {
        let schema = try PostgresTestSchema()
        let retention: Int64 = 4
        let store = try schema.store(outcomeRetention: retention)
        let engine = LedgerEngine(store: store, currency: .usd)
        let clients = (0..<6).map { _ in UUID() }
        let stopped = clients[0]
        var last: [UUID: Int64] = [:]
        var expected: [UUID: [Int64: ConsumedOutcome]] = [:]
        for group in 0..<40 {
            var pushes: [(clientId: UUID, items: [PushItem])] = []
            for (index, clientId) in clients.enumerated() where group < 3 || clientId != stopped {
                let first = last[clientId, default: 0] + 1
                let count: Int64 = index % 2 == 0 ? 1 : 3
                last[clientId] = first + count - 1
                // Every third one applies, the others are rejected.
                pushes.append((clientId, (first..<first + count).map { $0 % 3 == 0 ? putItem($0, UUID(), base: 0, lunch()) : Self.rejected($0) }))
            }
            for (push, result) in zip(pushes, try engine.apply(pushes)) {
                for (item, answer) in zip(push.items, result.results) {
                    expected[push.clientId, default: [:]][item.mutationId] = ConsumedOutcome(answer.status)
                }
            }
            // One mutation per run: 4 runs in the window; three per run: the window straddles at most 2 runs.
            let rows = try schema.connect().query("""
                SELECT client, count(*) FROM outcome_runs GROUP BY client
                """).all
            for row in rows {
                let index = clients.firstIndex { UUIDText.lowercased($0) == row.text(0) } ?? 0
                #expect(row.int64(1) <= (index % 2 == 0 ? retention : 2), "group \(group), client \(index): \(row.int64(1)) runs")
            }
        }
        #expect(try store.keptOutcomeCount(clientId: stopped) == 3)
        var lookups = clients.flatMap { clientId in (1...last[clientId, default: 0]).map { (clientId, $0) } }
        lookups.shuffle()
        try store.transaction { () throws -> Void in
            for (clientId, mutationId) in lookups {
                let inWindow = mutationId > last[clientId, default: 0] - retention
                #expect(try store.outcome(clientId: clientId, mutationId: mutationId) == (inWindow ? expected[clientId]?[mutationId] : nil))
            }
        }
        for clientId in clients.dropFirst() { #expect(try store.keptOutcomeCount(clientId: clientId) == 4) }
    }

    /// A database at migration 3, with one `outcomes` row per kept outcome: migrated, every kept outcome answers
    /// exactly as before, `outcomes` is gone, and a push after it answers duplicates from either kind of run.
    @Test(.enabled(if: enabled, reason))
    func aDatabaseWithOutcomeRowsMigratesAnsweringTheSame() throws {
        let schema = try PostgresTestSchema(migrations: 4)
        let connection = try schema.connect()
        try PostgresLedgerStore.create(connection: connection, name: "old", currency: .usd, token: nil)
        try PostgresLedgerStore.create(connection: connection, name: "other", currency: .usd, token: nil)
        let ann = UUID(), bob = UUID()
        let annOutcomes = OldOutcomeRowsFixture.manyKinds()
        let bobOutcomes = OldOutcomeRowsFixture.twoApplied
        for (ledger, clientId, last, outcomes) in [("old", ann, Int64(30), annOutcomes), ("old", bob, 5, bobOutcomes),
                                                   ("other", ann, 2, bobOutcomes)] {
            try connection.query("INSERT INTO clients (ledger, id, last_mutation_id) VALUES ($1, $2, $3)",
                                 [.text(ledger), .text(UUIDText.lowercased(clientId)), .integer(last)])
            for (mutationId, outcome) in outcomes { try Self.insertOldRow(connection, ledger, clientId, mutationId, outcome) }
        }
        try PostgresLedgerStore.prepareSchema(connection)
        #expect(try connection.query("SELECT max(version) FROM schema_version").first?.int64(0) == Int64(PostgresLedgerStore.migrations.count))
        #expect(try connection.query("SELECT count(*) FROM pg_tables WHERE tablename = 'outcomes' AND schemaname = $1",
                                     [.text(schema.schema)]).first?.int64(0) == 0)
        let store = try PostgresLedgerStore(connection: try schema.connect(), name: "old", outcomeRetention: 25)
        let other = try PostgresLedgerStore(connection: try schema.connect(), name: "other")
        try store.transaction { () throws -> Void in
            for mutationId in Int64(1)...31 {
                #expect(try store.outcome(clientId: ann, mutationId: mutationId) == (mutationId > 5 ? annOutcomes[mutationId] : nil), "\(mutationId)")
            }
            for mutationId in Int64(1)...5 { #expect(try store.outcome(clientId: bob, mutationId: mutationId) == bobOutcomes[mutationId]) }
        }
        try other.transaction { () throws -> Void in
            for mutationId in Int64(1)...2 { #expect(try other.outcome(clientId: ann, mutationId: mutationId) == bobOutcomes[mutationId]) }
        }
        #expect(try store.keptOutcomeCount(clientId: ann) == 24)

        // A push after the conversion: a duplicate answers from a converted run or from the new one.
        let engine = LedgerEngine(store: store, currency: .usd)
        let results = try engine.push(clientId: ann, items: [putItem(31, UUID(), base: 0, lunch()), putItem(10, UUID(), base: 0, lunch()),
                                                             putItem(31, UUID(), base: 0, lunch())]).results.map(\.status)
        #expect(results == [.applied(version: 1, seq: 1), .duplicate(original: .rejected(MutationRejection(
            reason: "invalid_note", field: "note", message: "trop long: é🙂 10"))), .duplicate(original: .applied(version: 1, seq: 1))])
        try store.transaction { () throws -> Void in
            for mutationId in Int64(1)...31 {
                let expected = mutationId == 31 ? .applied(version: 1, seq: 1) : annOutcomes[mutationId]
                #expect(try store.outcome(clientId: ann, mutationId: mutationId) == (mutationId > 6 ? expected : nil), "\(mutationId)")
            }
        }
    }

    /// One row of migration 0's `outcomes`, as the store wrote them before migration 4.
    private static func insertOldRow(_ connection: PostgresConnection, _ ledger: String, _ clientId: UUID, _ mutationId: Int64,
                                      _ outcome: ConsumedOutcome) throws {
        var values: [PostgresValue] = [.integer(0), .null, .null, .null, .null, .null, .null]
        switch outcome {
        case .applied(let version, let seq):
            values[1] = .integer(version)
            values[2] = .integer(seq)
        case .conflict(let id):
            values[0] = .integer(1)
            values[3] = .text(UUIDText.lowercased(id))
        case .rejected(let rejection):
            values[0] = .integer(2)
            values[4] = .text(rejection.reason)
            values[5] = rejection.field.map { .text($0) } ?? .null
            values[6] = .text(rejection.message)
        }
        try connection.query("""
            INSERT INTO outcomes (ledger, client, mutation_id, status, version, seq, record, reason, field, message)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
            """, [.text(ledger), .text(UUIDText.lowercased(clientId)), .integer(mutationId)] + values)
    }

    /// `expensed migrate`'s two halves: the outcomes inside the windows, one by one, into another database and back.
    @Test(.enabled(if: enabled, reason))
    func aSnapshotCarriesTheKeptOutcomes() throws {
        let source = try PostgresTestSchema(), target = try PostgresTestSchema()
        let store = try source.store(outcomeRetention: 10)
        let engine = LedgerEngine(store: store, currency: .usd)
        let ann = UUID(), bob = UUID(), id = UUID()
        _ = try engine.push(clientId: ann, items: (1...8).map { putItem(Int64($0), UUID(), base: 0, lunch()) } + [putItem(9, id, base: 0, lunch())])
        _ = try engine.push(clientId: bob, items: [putItem(1, id, base: 1, fields(amount: 5)), Self.rejected(2)])
        _ = try engine.push(clientId: ann, items: [putItem(10, id, base: 1, fields(amount: 7)), Self.rejected(11), Self.rejected(12)])
        let snapshot = try PostgresLedgerStore.snapshot(ledger: "test", connection: try source.connect(), outcomeRetention: 10)
        #expect(snapshot.outcomes.filter { $0.clientId == ann }.map(\.mutationId) == Array(3...12))
        #expect(snapshot.outcomes.count == 12)
        let connection = try target.connect()
        try PostgresLedgerStore.install(snapshot, connection: connection)
        #expect(try PostgresLedgerStore.snapshot(ledger: "test", connection: connection, outcomeRetention: 10) == snapshot)
        let installed = try PostgresLedgerStore(connection: try target.connect(), name: "test", outcomeRetention: 10)
        for (clientId, last) in [(ann, Int64(12)), (bob, Int64(2))] {
            for mutationId in 1...last {
                #expect(try installed.transaction { try installed.outcome(clientId: clientId, mutationId: mutationId) }
                        == store.transaction { try store.outcome(clientId: clientId, mutationId: mutationId) })
            }
        }
    }

    /// A run or an open run whose bytes were changed behind the daemon's back: the lookup (in a transaction or
    /// not), the read-ahead and the kept count throw a storage error, never trap.
    @Test(.enabled(if: enabled, reason))
    func aDamagedRunThrowsAStorageError() throws {
        let schema = try PostgresTestSchema()
        let store = try schema.store()
        let ann = UUID()
        let engine = LedgerEngine(store: store, currency: .usd)
        // More than an open run holds (a run row), then one outcome (the open run).
        _ = try engine.push(clientId: ann, items: (1...40).map { Self.rejected(Int64($0)) })
        _ = try engine.push(clientId: ann, items: [Self.rejected(41)])
        let connection = try schema.connect()
        #expect(try store.outcomeRunCount() == 1)
        try connection.execute("UPDATE outcome_runs SET outcomes = substring(outcomes FROM 1 FOR length(outcomes) - 3)")
        #expect(throws: LedgerError.self) { try store.transaction { try store.outcome(clientId: ann, mutationId: 2) } }
        #expect(throws: LedgerError.self) { try store.outcome(clientId: ann, mutationId: 2) }
        #expect(try store.outcome(clientId: ann, mutationId: 41) != nil)
        try connection.execute("UPDATE clients SET open_outcomes = substring(open_outcomes FROM 1 FOR length(open_outcomes) - 3)")
        #expect(throws: LedgerError.self) { try store.outcome(clientId: ann, mutationId: 41) }
        #expect(throws: LedgerError.self) { try store.transaction { try store.outcome(clientId: ann, mutationId: 41) } }
        #expect(throws: LedgerError.self) { try engine.push(clientId: ann, items: [Self.rejected(42)]) }
        try connection.execute("UPDATE clients SET open_outcomes = NULL, open_first = 0, open_last = 0")
        try connection.execute("UPDATE outcome_runs SET last_mutation_id = first_mutation_id + 50")
        #expect(throws: LedgerError.self) { try store.transaction { try store.outcome(clientId: ann, mutationId: 1) } }
        try connection.execute("UPDATE clients SET open_outcomes = '\\x00', open_first = 5, open_last = 2")
        #expect(throws: LedgerError.self) { try engine.push(clientId: ann, items: [Self.rejected(42)]) }
    }
}
