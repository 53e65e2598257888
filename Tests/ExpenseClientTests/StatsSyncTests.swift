import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import Foundation
import Testing
import TestSupport

/// `stats` on the wire (Protocol.md §5.10): after a sync the daemon's figures, computed from its per-day
/// aggregates, equal the client's, computed from its local buckets, by the same core code.
@Suite(.serialized) struct StatsSyncTests {
    private static func day(_ text: String) -> CalendarDay {
        guard let day = CalendarDay(text) else { preconditionFailure("bad test day") }
        return day
    }

    private func daemonStatistics(_ daemon: TestDaemon, _ request: StatsRequest) async throws -> StatsResult {
        let remote = daemon.remote
        return try await onOwnThread {
            let connection = try SyncConnection(remote: remote, clientId: UUID(), clientName: "stats-test")
            defer { connection.close() }
            return try connection.call(request)
        }
    }

    @Test("after a sync the local statistics equal the daemon's, for every period, by category or not")
    func localEqualsDaemon() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann", persistent: true), bob = try TestClient("bob")
        var generator = SeededGenerator(seed: 14)
        let categories = ["food", "rent", "caf\u{E9}", "cafe\u{301}", "<b>&"]
        for index in 0..<300 {
            let client = index % 3 == 0 ? bob : ann
            let date = Self.day("2024-11-01").adding(days: Int.random(in: 0..<800, using: &generator))?.description ?? "2025-01-01"
            let currency = index % 7 == 0 ? "JPY" : "USD"
            _ = try client.ledger.add(ExpenseDraft(amount: Int64.random(in: 1...90_000, using: &generator), currency: currency,
                                                   category: categories[index % categories.count], date: date, note: ""))
        }
        let deleted = try ann.add(123, "food", date: "2025-06-01")
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        try ann.delete(deleted.id)
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        let today = Self.day("2026-01-14")
        for period in StatisticsPeriod.allCases {
            for byCategory in [false, true] {
                let query = try StatisticsQuery(period: period, from: Self.day("2024-12-15"), to: Self.day("2026-02-10"),
                                                byCategory: byCategory, today: today)
                let daemonResult = try await daemonStatistics(daemon, StatsRequest(query: query))
                #expect(daemonResult.statistics == (try bob.ledger.statistics(query)), "\(period) byCategory \(byCategory)")
                #expect(daemonResult.statistics == (try ann.ledger.statistics(query)), "\(period) byCategory \(byCategory)")
                #expect(daemonResult.statistics.tables.map(\.currency.code) == ["JPY", "USD"])
            }
        }
        // The month totals are summary's month groups too (one source of numbers).
        let months = try StatisticsQuery(period: .month, from: Self.day("2025-01-01"), to: Self.day("2025-12-31"), today: today)
        let summary = try bob.ledger.summary(SummaryQuery(from: months.from, to: months.to, groupBy: .month))
        let usd = try #require(try bob.ledger.statistics(months).tables.last)
        #expect(usd.rows.map(\.total) == months.spans.map { span in
            summary.groups.first { $0.key == span.label && $0.currency.code == "USD" }?.amount ?? 0
        })
        await daemon.stop()
    }

    @Test("the daemon resolves a default range, validates params on the request type, and bounds the answer")
    func wireRules() async throws {
        let daemon = try TestDaemon(maximumLineLength: 4096)
        let ann = try TestClient("ann")
        for index in 0..<120 { _ = try ann.add(100, "category-\(index)", date: "2026-03-01") }
        try await ann.sync(daemon)
        let answered = try await daemonStatistics(daemon, StatsRequest(period: .quarter, today: Self.day("2026-03-20")))
        #expect(answered.statistics.periods.count == 12)
        #expect(answered.statistics.periods.last?.label == "2026-Q1")
        #expect(answered.statistics.tables.first?.total == 12000)
        await #expect(throws: SyncError.self) {
            try await daemonStatistics(daemon, StatsRequest(period: .week, byCategory: true, today: Self.day("2026-03-20")))
        }
        #expect(throws: RPCError.self) { try StatsRequest(params: .object(["period": .string("day")])) }
        #expect(throws: RPCError.self) { try StatsRequest(params: .object(["byCategory": .string("yes")])) }
        #expect(throws: RPCError.self) { try StatsRequest(params: .object(["currency": .string("usd")])) }
        #expect(throws: RPCError.self) {
            try StatsRequest(params: .object(["from": .string("2026-02-01"), "to": .string("2026-01-01")]))
        }
        #expect(throws: RPCError.self) {
            try StatsRequest(params: .object(["period": .string("week"), "from": .string("1990-01-01"), "to": .string("2026-01-01")]))
        }
        await daemon.stop()
    }
}
