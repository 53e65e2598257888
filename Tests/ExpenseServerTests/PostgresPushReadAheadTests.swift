import ExpenseCore
import ExpenseProtocol
import Foundation
import PostgreSQL
import Testing
import TestSupport
@testable import ExpenseServer

/// The PostgreSQL store's push reads ahead in one round trip and writes in one (read one value at a time, a
/// 500-mutation push once took 1,011 round trips): its round trips do not grow with the mutations, and what it decides
/// is what the one-by-one reads decide.
@Suite(.offTheCooperativePool) struct PostgresPushReadAheadTests {
    static let enabled = PostgresTestCluster.enabled
    static let reason = Comment(rawValue: PostgresTestCluster.skipReason)

    @Test(.enabled(if: enabled, reason))
    func aPushTakesTheSameFewRoundTripsWhateverItsSize() throws {
        let schema = try PostgresTestSchema()
        let store = try schema.store()
        let engine = LedgerEngine(store: store, currency: .usd)
        let clientId = UUID()
        func roundTrips(_ items: [PushItem]) throws -> (roundTrips: Int, statements: Int) {
            let before = try store.connection.counters
            let result = try engine.push(clientId: clientId, items: items)
            #expect(result.results.allSatisfy { if case .applied = $0.status { true } else { false } })
            let after = try store.connection.counters
            return (after.roundTrips - before.roundTrips, after.statements - before.statements)
        }
        // The first push loads the totals, in the lock's round trip too.
        let first = try roundTrips([putItem(1, UUID(), base: 0, lunch())])
        let one = try roundTrips([putItem(2, UUID(), base: 0, lunch())])
        let many = try roundTrips((3...502).map { putItem(Int64($0), UUID(), base: 0, lunch(Int64($0))) })
        // BEGIN, the row lock, the totals when stale and the read-ahead; every write, the head and COMMIT.
        #expect(one.roundTrips == 2)
        #expect(first.roundTrips == one.roundTrips)
        #expect(many.roundTrips == one.roundTrips)
        // The one statement more: the outcome run inserted into `outcome_runs` (a single push's outcome stays in
        // its client's row, the open run; 500 are more than an open run holds).
        #expect(many.statements == one.statements + 1)
        // Another store's commit makes the totals stale: still the same round trips, and they are reloaded.
        let other = LedgerEngine(store: try schema.store(), currency: .usd)
        _ = try other.push(clientId: UUID(), items: [putItem(1, UUID(), base: 0, lunch(5))])
        let afterOther = try roundTrips([putItem(503, UUID(), base: 0, lunch())])
        #expect(afterOther.roundTrips == one.roundTrips)
        #expect(try store.liveTotal(currency: .usd) == 1250 + 1250 + (3...502).reduce(0, +) + 5 + 1250)
    }

    /// The announcement to the other daemons goes in the commit's round trip, after `COMMIT`: a push still takes
    /// two round trips, the listener hears it, and a push that changed no record (a rejected delete) announces nothing.
    @Test(.enabled(if: enabled, reason))
    func anAnnouncedCommitTakesNoExtraRoundTrip() throws {
        let schema = try PostgresTestSchema()
        // Channels are the database's, not the schema's: other tests' daemons announce on it at the same time, so
        // this test's ledger has a name of its own and only announcements of that name count.
        let name = "announce" + UUIDText.lowercased(UUID()).prefix(8)
        let store = try schema.store(name: name)
        store.announcesChanges = true
        let listener = try schema.connect()
        try listener.execute("LISTEN " + listener.quotedIdentifier(PostgresLedgerStore.changeChannel))
        let engine = LedgerEngine(store: store, currency: .usd)
        let clientId = UUID()
        for (index, items) in [[putItem(1, UUID(), base: 0, lunch())], [deleteItem(2, UUID(), base: 1)]].enumerated() {
            let before = try store.connection.counters.roundTrips
            _ = try engine.push(clientId: clientId, items: items)
            #expect(try store.connection.counters.roundTrips - before == 2)
            func ours(timeout: Double) throws -> [String] { // not money: seconds
                try listener.notifications(timeout: timeout).map(\.payload).filter { $0 == name }
            }
            var heard: [String] = []
            if index == 0 {
                for _ in 0..<100 where heard.isEmpty { heard = try ours(timeout: 0.1) }
                #expect(heard == [name])
            } else {
                #expect(try ours(timeout: 0.2).isEmpty)
            }
        }
    }

    /// A mixed sequence of pushes (creates, edits with and without conflicts, deletes, restores, duplicates,
    /// gaps, an id written twice in one push, overflow) through the engine (read-ahead) and through the rules
    /// alone (one read per value), on two PostgreSQL ledgers and the in-memory reference: the same answers,
    /// records, totals and history.
    @Test(.enabled(if: enabled, reason))
    func readAheadDecidesExactlyAsOneByOneReads() throws {
        let schema = try PostgresTestSchema()
        let ahead = LedgerEngine(store: try schema.store(name: "ahead"), currency: .usd)
        let oneByOne = LedgerEngine(store: try schema.store(name: "onebyone"), currency: .usd)
        let reference = LedgerEngine(store: InMemoryLedgerStore(), currency: .usd)
        for engine in [ahead, oneByOne, reference] { engine.clock = { 1_700_000_000 } }
        let pushes = Self.mixedPushes()
        var statuses: [MutationStatus] = []
        for (index, push) in pushes.enumerated() {
            let viaReadAhead = try ahead.apply([(push.clientId, push.items, "who")])
            let viaOneByOne = try Self.applyWithoutReadAhead(push, to: oneByOne)
            let viaReference = try reference.apply([(push.clientId, push.items, "who")])
            #expect(viaReadAhead == viaOneByOne, "push \(index)")
            #expect(viaReadAhead == viaReference, "push \(index)")
            statuses += viaReference.flatMap { $0.results.map(\.status) }
        }
        // The sequence covers what it says it does.
        let reasons = Set(statuses.compactMap(\.reason))
        #expect(reasons.isSuperset(of: ["not_found", "missing_field", "mutation_gap", "amount_overflow"]))
        #expect(statuses.contains { if case .conflict = $0 { true } else { false } })
        #expect(statuses.contains { if case .duplicate(original: .conflict?) = $0 { true } else { false } })
        let records = try allRecords(reference)
        #expect(try allRecords(ahead) == records)
        #expect(try allRecords(oneByOne) == records)
        for query in [SummaryQuery(), SummaryQuery(groupBy: .category), SummaryQuery(groupBy: .month)] {
            let expected = try reference.summary(query).summary
            #expect(try ahead.summary(query).summary == expected)
            #expect(try oneByOne.summary(query).summary == expected)
        }
        let history = try reference.history(HistoryRequest(limit: 1000)).entries
        #expect(try ahead.history(HistoryRequest(limit: 1000)).entries == history)
        #expect(try oneByOne.history(HistoryRequest(limit: 1000)).entries == history)
    }

    /// What ``LedgerEngine/apply(_:)`` does, without ``LedgerStore/prefetch(clientIds:ids:)``.
    private static func applyWithoutReadAhead(_ push: (clientId: UUID, items: [PushItem]),
                                              to engine: LedgerEngine) throws -> [PushResult] {
        let store = engine.store
        return try store.transaction {
            let results = try engine.rules.apply(clientId: push.clientId, items: push.items, to: store,
                                                 author: HistoryAuthor(who: "who", time: 1_700_000_000))
            return [PushResult(results: results, cursor: store.head)]
        }
    }

    /// Also the corpus of `GroupedPushRowsTests`.
    static func mixedPushes() -> [(clientId: UUID, items: [PushItem])] {
        let alice = UUID(), bob = UUID()
        let maximum: Int64 = 9_007_199_254_740_991
        let ids = (0..<6).map { _ in UUID() }
        var pushes: [(clientId: UUID, items: [PushItem])] = []
        // Creates, an id created and edited in the same push, a delete of an unknown id.
        pushes.append((alice, [
            putItem(1, ids[0], base: 0, lunch(100)),
            putItem(2, ids[1], base: 0, lunch(200, category: "rent", date: "2026-10-01")),
            putItem(3, ids[2], base: 0, lunch(300)),
            putItem(4, ids[2], base: 1, fields(note: "same push")),
            deleteItem(5, UUID(), base: 1),
            putItem(6, ids[3], base: 0, fields(category: "no amount", date: "2026-11-30")),
        ]))
        // Bob edits and deletes what alice made; one edit conflicts with alice's in-push edit.
        pushes.append((bob, [
            putItem(1, ids[0], base: 1, fields(amount: 150)),
            putItem(2, ids[2], base: 1, fields(note: "bob")),  // conflicts: alice changed the note at version 2
            putItem(3, ids[2], base: 1, fields(amount: 333)),  // no conflict: the money did not change since 1
            deleteItem(4, ids[1], base: 1),
            putItem(5, ids[4], base: 3, lunch()),               // not_found
        ]))
        // Alice replays (duplicates, including a conflict answered with the record as it is now), skips ahead
        // (gap), restores the tombstone and edits against a stale base.
        pushes.append((alice, [
            putItem(2, ids[1], base: 0, lunch()),
            putItem(4, ids[2], base: 1, fields(note: "same push")),
            putItem(9, UUID(), base: 0, lunch()),
            putItem(7, ids[1], base: 2, lunch(250, category: "rent", date: "2026-10-02")),
            putItem(8, ids[0], base: 1, fields(amount: 175)),   // conflicts with bob's money edit
            putItem(9, ids[0], base: 2, fields(category: "dinner")),
            deleteItem(10, ids[0], base: 3),
            deleteItem(11, ids[0], base: 3),                     // already deleted: applied at its version
        ]))
        // Bob replays his conflicted edit: the duplicate answers the record as it is now.
        pushes.append((bob, [putItem(2, ids[2], base: 1, fields(note: "bob")), putItem(6, ids[5], base: 0, lunch())]))
        // Overflow per currency: 1,024 maximal amounts fit in Int64, the 1,025th does not.
        var next: Int64 = 7
        for batch in 0..<3 {
            let count = batch < 2 ? 500 : 30
            pushes.append((bob, (0..<count).map { _ in
                defer { next += 1 }
                return putItem(next, UUID(), base: 0, lunch(maximum))
            }))
        }
        pushes.append((bob, [putItem(next, ids[5], base: 1, fields(amount: maximum)),
                             putItem(next + 1, ids[3], base: 0, lunch(5)), deleteItem(next + 2, ids[5], base: 1)]))
        return pushes
    }
}
