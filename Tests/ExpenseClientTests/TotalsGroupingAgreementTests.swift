import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import Foundation
import PostgreSQL
import Testing
import TestSupport

/// The client and the daemon group expenses into totals alike (``ExpenseCore/TotalsKey``): the same expenses give
/// the same per-day totals in every client cache and every daemon store, and the same summaries and statistics,
/// on categories that `String`'s `==` or a case-blind comparison would merge.
@Suite struct TotalsGroupingAgreementTests {
    /// Pairs that must stay apart: NFC and NFD "café"; U+00C5 and the Ångström sign U+212B (canonically
    /// equivalent); two cases of one word. Trailing spaces are trimmed before a category is stored, so they are
    /// not among them.
    static let categories = ["caf\u{E9}", "cafe\u{301}", "\u{C5}", "\u{212B}", "Food", "food", "office"]
    /// Days at the edges of months: the month totals of the daemon's stores are made from them.
    static let days = ["2025-01-31", "2025-02-01", "2025-02-28"]
    static let currencies = ["USD", "EUR"]

    /// A day, a category's bytes and a currency code: the test's own key, so that it does not assume the rule.
    struct Key: Hashable {
        var day: Int
        var category: [UInt8]
        var currency: String
    }

    struct Sum: Hashable {
        var amount: Int64
        var count: Int64
    }

    /// The daemon's stores this run can open (PostgreSQL when a test cluster is given).
    enum DaemonStore: String, CaseIterable, CustomTestStringConvertible {
        case memory, sqlite, postgres
        var testDescription: String { rawValue }
        static var available: [DaemonStore] { PostgresTestCluster.enabled ? allCases : [.memory, .sqlite] }
    }

    /// Every (day, category, currency) twice, with different amounts, through `ledger`.
    static func addCorpus(to ledger: LocalLedger) throws {
        let keys = days.count * categories.count * currencies.count
        for index in 0..<(2 * keys) {
            let draft = ExpenseDraft(amount: Int64(100 + 37 * index), currency: currencies[index / (keys / 2) % 2],
                                     category: categories[index % categories.count],
                                     date: days[index / categories.count % days.count], note: "")
            _ = try ledger.add(draft)
        }
    }

    @Test(arguments: CacheStoreKind.allCases, DaemonStore.available)
    func theClientsBucketsEqualTheDaemonsDayTotals(cache: CacheStoreKind, daemon: DaemonStore) throws {
        let directory = try TemporaryDirectory("totals-grouping")
        defer { directory.remove() }
        let ledger = LocalLedger(store: try cache.open(in: directory))
        try Self.addCorpus(to: ledger)
        let engine = try Self.engine(daemon, in: directory)
        defer { engine.drop() }
        try Self.push(ledger, to: engine.engine)

        var client: [Key: Sum] = [:]
        for bucket in try ledger.store.buckets(matching: ExpenseFilter()) {
            let key = Key(day: bucket.date.ordinal, category: Array(bucket.category.utf8), currency: bucket.currency.code)
            #expect(client[key] == nil, "one bucket per key")
            client[key] = Sum(amount: bucket.amount, count: bucket.count)
        }
        var daemonTotals: [Key: Sum] = [:]
        let from = try #require(CalendarDay("2025-01-01")), to = try #require(CalendarDay("2025-12-31"))
        try engine.engine.store.forEachDayTotal(from: from, to: to) { total in
            let key = Key(day: total.day.ordinal, category: Array(total.category.utf8), currency: total.currency.code)
            // Summed: a store without per-day totals gives one per record (``LedgerStore/forEachDayTotal``).
            let sum = daemonTotals[key] ?? Sum(amount: 0, count: 0)
            daemonTotals[key] = Sum(amount: sum.amount + total.amount, count: sum.count + total.count)
        }
        #expect(client == daemonTotals)
        // Every spelling is a key of its own, each holding its two expenses.
        #expect(client.count == Self.days.count * Self.categories.count * Self.currencies.count)
        #expect(client.values.allSatisfy { $0.count == 2 })

        for grouping in SummaryGrouping.allCases {
            let query = SummaryQuery(groupBy: grouping)
            #expect(try ledger.summary(query) == engine.engine.store.summary(query), "\(grouping)")
        }
        let byCategory = try engine.engine.store.summary(SummaryQuery(groupBy: .category)).groups
        #expect(byCategory.count == Self.categories.count * Self.currencies.count)
        for period in StatisticsPeriod.allCases {
            let query = try StatisticsQuery(period: period, from: from, to: try #require(CalendarDay("2025-03-31")),
                                            byCategory: true, today: to)
            let statistics = try ledger.statistics(query)
            #expect(try engine.engine.statistics(query).statistics == statistics, "\(period)")
            #expect(statistics.tables.map(\.categories.count) == [Self.categories.count, Self.categories.count])
        }
    }

    /// Pushes the client's pending puts to `engine` as a sync would send them.
    static func push(_ ledger: LocalLedger, to engine: LedgerEngine) throws {
        let pending = try ledger.store.pendingMutations(limit: 1_000)
        let items = pending.enumerated().map { offset, mutation in
            let mutationId = Int64(offset + 1)
            return PushItem(mutationId: mutationId, decoded: .success(Mutation(
                mutationId: mutationId, type: .put, id: mutation.id, baseVersion: 0,
                fields: ExpenseFields.json(from: mutation.fields))))
        }
        let results = try engine.push(clientId: UUID(), items: items).results
        #expect(results.count == pending.count)
        #expect(results.allSatisfy { if case .applied = $0.status { true } else { false } })
    }

    /// An engine over a fresh store of `kind`, and what drops its schema when it is PostgreSQL's.
    struct TestEngine {
        var engine: LedgerEngine
        var drop: () -> Void = {}
    }

    static func engine(_ kind: DaemonStore, in directory: TemporaryDirectory) throws -> TestEngine {
        switch kind {
        case .memory:
            return TestEngine(engine: LedgerEngine(store: InMemoryLedgerStore(), currency: .usd))
        case .sqlite:
            let store = try SQLiteLedgerStore(path: directory.file("daemon.sqlite"), name: "test", currency: .usd)
            return TestEngine(engine: LedgerEngine(store: store, currency: .usd))
        case .postgres:
            let conninfo = try PostgresTestCluster.required(), schema = PostgresTestCluster.uniqueSchema()
            let admin = try PostgresConnection(conninfo)
            _ = try admin.execute("CREATE SCHEMA " + admin.quotedIdentifier(schema))
            let drop = { _ = try? admin.execute("DROP SCHEMA " + admin.quotedIdentifier(schema) + " CASCADE") }
            do {
                let connection = try PostgresConnection(conninfo, schema: schema)
                try PostgresLedgerStore.prepareSchema(connection)
                try PostgresLedgerStore.create(connection: connection, name: "test", currency: .usd, token: nil)
                let store = try PostgresLedgerStore(connection: connection, name: "test")
                return TestEngine(engine: LedgerEngine(store: store, currency: .usd), drop: drop)
            } catch {
                drop()
                throw error
            }
        }
    }
}
