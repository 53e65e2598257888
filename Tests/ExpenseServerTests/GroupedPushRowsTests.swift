import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// The SQLite store writes a group commit's rows in multi-row statements (a 500-row group steps about 10 statements
/// per table, not 500): many pushes from several clients in one group must give exactly the answers, records, totals,
/// outcomes and history that the same pushes give one per group, and that the in-memory reference gives.
@Suite(.offTheCooperativePool) struct GroupedPushRowsTests {
    /// Small enough that the mixed corpus's long pushes drop outcomes out of the window.
    static let retention: Int64 = 300
    static let time: Int64 = 1_700_000_000

    @Test func manyPushesInOneGroupWriteWhatOnePushPerGroupWrites() throws {
        let directory = try TemporaryDirectory("grouped-rows")
        defer { directory.remove() }
        func sqlite(_ name: String) throws -> LedgerEngine {
            let store = try SQLiteLedgerStore(path: directory.file(name + ".sqlite"), name: name, currency: .usd,
                                              outcomeRetention: Self.retention)
            return LedgerEngine(store: store, currency: .usd)
        }
        let oneByOne = try sqlite("one-by-one")
        let allInOne = try sqlite("all-in-one")
        let inThrees = try sqlite("in-threes")
        let reference = LedgerEngine(store: InMemoryLedgerStore(outcomeRetention: Self.retention), currency: .usd)
        for engine in [oneByOne, allInOne, inThrees, reference] { engine.clock = { Self.time } }

        let pushes = try Self.pushes()
        let expected = try pushes.flatMap { try oneByOne.apply([$0]) }.map(\.results)
        #expect(try pushes.flatMap { try reference.apply([$0]) }.map(\.results) == expected)
        #expect(try allInOne.apply(pushes).map(\.results) == expected)
        var inThreesResults: [[MutationResult]] = []
        for start in stride(from: 0, to: pushes.count, by: 3) {
            inThreesResults += try inThrees.apply(Array(pushes[start..<min(start + 3, pushes.count)])).map(\.results)
        }
        #expect(inThreesResults == expected)

        // The corpus covers what it says it does.
        let statuses = expected.flatMap { $0.map(\.status) }
        let reasons = Set(statuses.compactMap(\.reason))
        #expect(reasons.isSuperset(of: ["not_found", "mutation_gap", "amount_overflow", "invalid_id", "invalid_amount"]))
        #expect(statuses.contains { if case .duplicate(original: .conflict?) = $0 { true } else { false } })
        #expect(statuses.contains { if case .dataConflict = $0 { true } else { false } })

        let reopenedAllInOne = try sqlite("all-in-one")
        for engine in [allInOne, inThrees, reopenedAllInOne] { try Self.expectSameState(engine, as: oneByOne, pushes: pushes) }
        try Self.expectSameState(oneByOne, as: reference, pushes: pushes)
    }

    /// Records, summaries (whole and partial months: `monthly_totals` and `daily_totals`), live totals, history,
    /// every client's last consumed mutationId and every kept outcome.
    static func expectSameState(_ engine: LedgerEngine, as expected: LedgerEngine,
                                pushes: [(clientId: UUID, items: [PushItem], who: String?)]) throws {
        #expect(engine.store.head == expected.store.head)
        #expect(try allRecords(engine) == allRecords(expected))
        let data = PullRequest(since: 0, limit: 10_000, kinds: [.budget, .recurring, .setting], expenses: false)
        #expect(try engine.pull(data) == expected.pull(data))
        let october = try #require(CalendarDay(year: 2026, month: 10, day: 2))
        let november = try #require(CalendarDay(year: 2026, month: 11, day: 30))
        for query in [SummaryQuery(), SummaryQuery(groupBy: .category), SummaryQuery(groupBy: .month),
                      SummaryQuery(from: october, to: november, groupBy: .category)] {
            #expect(try engine.summary(query).summary == expected.summary(query).summary)
        }
        for currency in [Currency.usd, try #require(Currency(code: "EUR"))] {
            #expect(try engine.store.liveTotal(currency: currency) == expected.store.liveTotal(currency: currency))
        }
        let history = HistoryRequest(limit: 1000)
        #expect(try engine.history(history).entries == expected.history(history).entries)
        #expect(try engine.history(HistoryRequest(since: 1000, limit: 1000)).entries
                == expected.history(HistoryRequest(since: 1000, limit: 1000)).entries)
        for clientId in Set(pushes.map(\.clientId)) {
            let last = try expected.store.lastMutationId(clientId: clientId)
            #expect(try engine.store.lastMutationId(clientId: clientId) == last)
            for mutationId in 1...max(last, 1) {
                #expect(try engine.store.outcome(clientId: clientId, mutationId: mutationId)
                        == expected.store.outcome(clientId: clientId, mutationId: mutationId))
            }
        }
    }

    /// The read-ahead suite's mixed corpus (two clients, creates, edits, conflicts, deletes, restores, duplicates,
    /// gaps, overflow, pushes of 500), then three clients' pushes on budgets and expenses that interleave: the
    /// same id created, edited, deleted and restored across pushes of one group, an expense id that is a
    /// budget's, rejections among applied mutations, a replay of a mutation of this group.
    static func pushes() throws -> [(clientId: UUID, items: [PushItem], who: String?)] {
        var pushes = PostgresPushReadAheadTests.mixedPushes().map { (clientId: $0.clientId, items: $0.items, who: String?("mixed")) }
        let carol = UUID(), dave = UUID(), erin = UUID()
        let budget = try budgetId("food", "EUR")
        let shared = UUID(), other = UUID()
        pushes.append((carol, [
            kindItem(1, .budget, budget, base: 0, budgetFields()),
            putItem(2, budget, base: 0, lunch()),                                   // invalid_id: a budget's
            putItem(3, shared, base: 0, lunch(400, category: "café", date: "2026-11-03")),
            putItem(4, other, base: 0, fields(amount: 90, currency: "EUR", category: "food", date: "2026-10-31")),
        ], "carol"))
        pushes.append((dave, [
            putItem(1, shared, base: 1, fields(category: "cafe\u{301}")),            // the other spelling
            kindItem(2, .budget, budget, base: 1, ["rollover": "full"]),
            putItem(3, UUID(), base: 0, lunch(0)),                                   // invalid_amount
            deleteItem(4, shared, base: 2),
        ], "dave"))
        pushes.append((carol, [
            putItem(3, shared, base: 0, lunch(400, category: "café", date: "2026-11-03")),  // duplicate of this group
            putItem(5, shared, base: 3, lunch(410, date: "2026-11-04")),             // restore
            kindItem(6, .budget, budget, base: 1, ["rollover": "positive"]),         // conflicts with dave's
            deleteItem(7, other, base: 1),
        ], "carol"))
        pushes.append((erin, [
            putItem(1, shared, base: 4, fields(amount: 420)),
            putItem(3, UUID(), base: 0, lunch()),                                    // gap
            putItem(2, other, base: 2, fields(amount: 95, currency: "EUR", category: "food", date: "2026-10-31")),
        ], nil))
        pushes.append((dave, [deleteItem(5, shared, base: 5), putItem(6, shared, base: 6, lunch(1, date: "2026-12-01"))], "dave"))
        return pushes
    }
}
