import ExpenseCore
import ExpenseProtocol
import Foundation
import PostgreSQL
import Testing
import TestSupport
@testable import ExpenseServer

/// The PostgreSQL store's open runs (migration 11, `PostgresLedgerStore+Outcomes.swift`): a client's newest
/// outcomes in its `clients` row, inserted into `outcome_runs` once the run would hold more than
/// ``OpenOutcomeRun/maximumCount``; every outcome answers from either, in a transaction and outside one, from this
/// daemon's store and another's; a database from before the migration opens answering every kept outcome.
@Suite(.offTheCooperativePool) struct PostgresOpenOutcomeRunTests {
    static let enabled = PostgresTestCluster.enabled
    static let reason = Comment(rawValue: PostgresTestCluster.skipReason)

    /// A rejected mutation (`invalid_amount`): it consumes its id and keeps an outcome.
    private static func rejected(_ mutationId: Int64) -> PushItem { putItem(mutationId, UUID(), base: 0, lunch(0)) }

    /// The rule both stores follow (``OpenOutcomeRun/committing(_:after:)``): outcomes after the open run join it,
    /// packed as the whole run would be; outcomes deciding one of its mutationIds again replace it from there;
    /// outcomes past a gap leave the open run to be appended; a run past the limits is appended and none stays open.
    @Test func theCommitRuleJoinsOrAppends() throws {
        let rejection = ConsumedOutcome.rejected(MutationRejection(reason: "invalid_amount", field: "amount", message: "é"))
        let outcomes: [ConsumedOutcome] = [.applied(version: 1, seq: 7), rejection, .conflict(id: UUID()), .applied(version: 3, seq: 4),
                                           rejection, .applied(version: 1, seq: 5), .applied(version: 1, seq: 6)]
        func packed(_ run: PendingOutcomeRun) -> OpenOutcomeRun { OpenOutcomeRun(run: run, bytes: PackedOutcomeRun.encode(run.outcomes)) }
        for split in 0...outcomes.count {
            let open = packed(PendingOutcomeRun(first: 10, outcomes: Array(outcomes.prefix(split))))
            let next = OpenOutcomeRun.committing(PendingOutcomeRun(first: 10 + Int64(split), outcomes: Array(outcomes.dropFirst(split))),
                                                 after: split == 0 ? nil : open)
            #expect(next.appended.isEmpty)
            #expect(next.open?.run == PendingOutcomeRun(first: 10, outcomes: outcomes) && next.open?.bytes == PackedOutcomeRun.encode(outcomes))
        }
        let open = packed(PendingOutcomeRun(first: 10, outcomes: outcomes))
        let again = OpenOutcomeRun.committing(PendingOutcomeRun(first: 12, outcomes: [rejection]), after: open)
        #expect(again.appended.isEmpty && again.open?.run == PendingOutcomeRun(first: 10, outcomes: Array(outcomes.prefix(2)) + [rejection]))
        let gap = OpenOutcomeRun.committing(PendingOutcomeRun(first: 20, outcomes: [rejection]), after: open)
        #expect(gap.appended.map(\.run) == [open.run] && gap.open?.run == PendingOutcomeRun(first: 20, outcomes: [rejection]))
        let full = OpenOutcomeRun.committing(PendingOutcomeRun(first: 17, outcomes: Array(repeating: rejection, count: OpenOutcomeRun.maximumCount)),
                                             after: open)
        #expect(full.open == nil && full.appended.count == 1 && full.appended.first?.run.last == 16 + Int64(OpenOutcomeRun.maximumCount))
        #expect(full.appended.first?.bytes == full.appended.first.map { PackedOutcomeRun.encode($0.run.outcomes) })
    }

    /// Single pushes of creates: every 33rd moves the open run to `outcome_runs`, as one run of 33 consecutive
    /// outcomes; every outcome answers, from the runs and from the open run, in this store and another daemon's;
    /// a snapshot carries them all.
    @Test(.enabled(if: enabled, reason))
    func aFullOpenRunJoinsTheLog() throws {
        let schema = try PostgresTestSchema()
        let store = try schema.store()
        let engine = LedgerEngine(store: store, currency: .usd)
        let ann = UUID()
        var expected: [Int64: ConsumedOutcome] = [:]
        for mutationId in Int64(1)...70 {
            let result = try engine.push(clientId: ann, items: [putItem(mutationId, UUID(), base: 0, lunch())])
            expected[mutationId] = ConsumedOutcome(result.results[0].status)
        }
        let connection = try schema.connect()
        let runs = try connection.query("SELECT first_mutation_id, last_mutation_id FROM outcome_runs ORDER BY first_mutation_id")
            .all.map { [$0.int64(0), $0.int64(1)] }
        let limit = Int64(OpenOutcomeRun.maximumCount)
        #expect(runs == [[1, limit + 1], [limit + 2, 2 * limit + 2]])
        let open = try connection.query("SELECT open_first, open_last FROM clients").first
        #expect(open?.int64(0) == 2 * limit + 3 && open?.int64(1) == 70)
        let other = try PostgresLedgerStore(connection: try schema.connect(), name: "test")
        for mutationId in Int64(1)...70 {
            #expect(try store.outcome(clientId: ann, mutationId: mutationId) == expected[mutationId])
            #expect(try other.outcome(clientId: ann, mutationId: mutationId) == expected[mutationId])
        }
        // Inside a transaction, read ahead (the open run from the read-ahead) and not.
        try store.transaction(prefetching: [ann], ids: []) { () throws -> Void in
            for mutationId in Int64(1)...71 { #expect(try store.outcome(clientId: ann, mutationId: mutationId) == expected[mutationId]) }
        }
        try other.transaction { () throws -> Void in
            for mutationId in Int64(1)...71 { #expect(try other.outcome(clientId: ann, mutationId: mutationId) == expected[mutationId]) }
        }
        #expect(try store.keptOutcomeCount(clientId: ann) == 70)
        #expect(try PostgresLedgerStore.snapshot(ledger: "test", connection: connection).outcomes.map(\.mutationId) == Array(1...70))

        // The other daemon moves the open run on: this store's next lookup reads it fresh, and a duplicate answers.
        let duplicate = try LedgerEngine(store: other, currency: .usd)
            .push(clientId: ann, items: [Self.rejected(71), putItem(68, UUID(), base: 0, lunch())]).results.map(\.status)
        #expect(expected[68] == .applied(version: 1, seq: 68))
        #expect(duplicate.count == 2 && duplicate[1] == .duplicate(original: .applied(version: 1, seq: 68)))
        guard case .rejected? = try store.outcome(clientId: ann, mutationId: 71) else {
            Issue.record("the open run the other daemon wrote does not answer")
            return
        }
    }

    /// A transaction without a read-ahead (``LedgerStore/transaction(_:)``) reads its clients' rows at commit: the
    /// outcomes it keeps join the open run all the same, and a client that only moved its last mutationId keeps
    /// its open run.
    @Test(.enabled(if: enabled, reason))
    func aCommitWithoutReadAheadJoinsTheOpenRun() throws {
        let schema = try PostgresTestSchema()
        let store = try schema.store()
        let ann = UUID(), bob = UUID()
        _ = try LedgerEngine(store: store, currency: .usd).apply([(ann, [Self.rejected(1)]), (bob, [Self.rejected(1)])])
        let outcome = try store.outcome(clientId: ann, mutationId: 1)
        try store.transaction { () throws -> Void in
            try store.setLastMutationId(clientId: ann, 2)
            try store.keepOutcome(try #require(outcome), clientId: ann, mutationId: 2)
            try store.setLastMutationId(clientId: bob, 5)
        }
        let rows = try schema.connect().query("SELECT open_first, open_last, last_mutation_id FROM clients ORDER BY last_mutation_id").all
        #expect(rows.map { [$0.int64(0), $0.int64(1), $0.int64(2)] } == [[1, 2, 2], [1, 1, 5]])
        #expect(try store.outcomeRunCount() == 0)
        #expect(try store.outcome(clientId: ann, mutationId: 2) == outcome && store.outcome(clientId: bob, mutationId: 1) == outcome)
    }

    /// A database at migration 10, its outcomes as the store wrote them then (one run row per client per group
    /// commit, no open runs): migrated, every kept outcome answers as before, and pushes after it start open runs
    /// beside the old rows.
    @Test(.enabled(if: enabled, reason))
    func aDatabaseBeforeOpenRunsMigratesAnsweringTheSame() throws {
        let schema = try PostgresTestSchema(migrations: 11)
        let connection = try schema.connect()
        try PostgresLedgerStore.create(connection: connection, name: "old", currency: .usd, token: nil)
        let number = try #require(try connection.query("SELECT number FROM ledgers WHERE name = 'old'").first?.int64(0))
        let ann = UUID(), bob = UUID()
        let annOutcomes = OldOutcomeRowsFixture.manyKinds()
        // Ann's outcomes as group commits of up to three mutationIds (10 runs: the hole at 12 ends one), Bob's as one.
        let kept = annOutcomes.sorted { $0.key < $1.key }.map { LedgerSnapshot.KeptOutcome(clientId: ann, mutationId: $0.key, outcome: $0.value) }
            + OldOutcomeRowsFixture.twoApplied.sorted { $0.key < $1.key }
            .map { LedgerSnapshot.KeptOutcome(clientId: bob, mutationId: $0.key, outcome: $0.value) }
        let runs = PendingOutcomeRun.runs(of: kept, maximumLength: 3)
        #expect(runs.count == 11)
        let insert = PostgresLedgerStore.insertRunsStatement(runs, ledger: number)
        try connection.query(insert.sql, insert.parameters)
        try connection.query("""
            INSERT INTO clients (ledger, id, last_mutation_id) VALUES ($1, $2, 30), ($1, $3, 2)
            """, [.integer(number), .text(UUIDText.lowercased(ann)), .text(UUIDText.lowercased(bob))])
        try PostgresLedgerStore.prepareSchema(connection)
        #expect(try connection.query("SELECT max(version) FROM schema_version").first?.int64(0) == Int64(PostgresLedgerStore.migrations.count))
        let store = try PostgresLedgerStore(connection: try schema.connect(), name: "old")
        for mutationId in Int64(1)...31 {
            #expect(try store.outcome(clientId: ann, mutationId: mutationId) == annOutcomes[mutationId], "\(mutationId)")
        }
        try store.transaction { () throws -> Void in
            for mutationId in Int64(1)...31 {
                #expect(try store.outcome(clientId: ann, mutationId: mutationId) == annOutcomes[mutationId], "\(mutationId)")
            }
            for mutationId in Int64(1)...2 { #expect(try store.outcome(clientId: bob, mutationId: mutationId) == OldOutcomeRowsFixture.twoApplied[mutationId]) }
        }
        #expect(try store.keptOutcomeCount(clientId: ann) == 29)
        #expect(try PostgresLedgerStore.snapshot(ledger: "old", connection: connection).outcomes.count == 31)

        // A push after the migration: its outcome opens a run in Ann's row; duplicates answer from the old rows.
        let engine = LedgerEngine(store: store, currency: .usd)
        let results = try engine.push(clientId: ann, items: [putItem(31, UUID(), base: 0, lunch()), putItem(10, UUID(), base: 0, lunch())])
            .results.map(\.status)
        #expect(results.count == 2 && results[0] == .applied(version: 1, seq: 1))
        #expect(results.count == 2 && results[1] == .duplicate(original: .rejected(MutationRejection(
            reason: "invalid_note", field: "note", message: "trop long: é🙂 10"))))
        #expect(try store.outcomeRunCount() == 11)
        let open = try connection.query("SELECT open_first, open_last FROM clients WHERE id = $1", [.text(UUIDText.lowercased(ann))]).first
        #expect(open?.int64(0) == 31 && open?.int64(1) == 31)
        #expect(try store.keptOutcomeCount(clientId: ann) == 30)
        for mutationId in Int64(1)...31 {
            let expected = mutationId == 31 ? .applied(version: 1, seq: 1) : annOutcomes[mutationId]
            #expect(try store.outcome(clientId: ann, mutationId: mutationId) == expected, "\(mutationId)")
        }
    }
}
