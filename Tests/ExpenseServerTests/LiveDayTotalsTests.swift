import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite
import Synchronization
import Testing
import TestSupport
@testable import ExpenseServer

/// The SQLite store keeps its per-day and per-month totals in memory (``LiveDayTotals``), built from `records`
/// at open and never written: they must answer `summary` and `stats` exactly as totals recomputed from the live
/// records do, through failed transactions and reopens, and a group commit must write nothing for them.
@Suite(.offTheCooperativePool) struct LiveDayTotalsTests {
    /// NFC and NFD spellings of one word are two categories; a long one is a heap string.
    static let categories = ["food", "rent", "caf\u{E9}", "cafe\u{301}", "travel", "\u{3A9}", "office supplies and equipment"]
    /// 2, 2, 0, 3, 3, 0 and 4 decimals.
    static let currencies = ["USD", "EUR", "JPY", "BHD", "KWD", "ISK", "UYW"]

    /// One client of one engine that numbers its mutations itself and takes a number back when its push failed.
    struct Pusher {
        var engine: LedgerEngine
        let clientId = UUID()
        var next: Int64 = 1
        /// Each record's version and whether it is a tombstone, as the pushes' answers said.
        var known: [UUID: (version: Int64, deleted: Bool)] = [:]

        /// Pushes `mutations` (put or delete, id, fields) in one transaction; `nil` when it threw.
        mutating func push(_ mutations: [(delete: Bool, id: UUID, fields: [String: JSONValue])]) -> [MutationStatus]? {
            var items: [PushItem] = []
            var bases: [UUID: Int64] = [:]
            for (offset, mutation) in mutations.enumerated() {
                // A record changed earlier in the same push is based on the version that change gives it.
                let base = bases[mutation.id] ?? known[mutation.id]?.version ?? 0
                bases[mutation.id] = base + 1
                let mutationId = next + Int64(offset)
                items.append(mutation.delete ? deleteItem(mutationId, mutation.id, base: base)
                                             : putItem(mutationId, mutation.id, base: base, mutation.fields))
            }
            guard let results = try? engine.push(clientId: clientId, items: items).results.map(\.status) else { return nil }
            next += Int64(mutations.count)
            for (mutation, status) in zip(mutations, results) {
                if case .applied(let version, _) = status { known[mutation.id] = (version, mutation.delete) }
            }
            return results
        }
    }

    @Test func theTotalsInMemoryEqualARecomputationFromTheRecords() throws {
        let directory = try TemporaryDirectory("live-totals")
        defer { directory.remove() }
        let path = directory.file("l.sqlite")
        let faults = StoreFaults()
        var store = try Self.open(path, faults: faults)
        var pusher = Pusher(engine: LedgerEngine(store: store, currency: .usd))
        var generator = SeededGenerator(seed: 2026_12_02)
        var applied = 0, failed = 0
        for round in 0..<2 {
            for step in 0..<150 {
                var mutations = (0..<Int.random(in: 1...8, using: &generator)).map { _ in
                    Self.randomMutation(pusher.known, using: &generator)
                }
                // Every 7th push fails: at its commit, or at one of its creates' writes (the body throws half-way;
                // each create writes once, so the write it fails at comes).
                if step % 7 == 3 {
                    mutations.append((false, UUID(), Self.randomFields(all: true, using: &generator)))
                    let writes = Mutex(0)
                    let creates = mutations.filter { !$0.delete && pusher.known[$0.id] == nil }.count
                    let failAt = Int.random(in: 1...creates, using: &generator)
                    let atCommit = Bool.random(using: &generator)
                    faults.inject { point in
                        let write = writes.withLock { count -> Int in
                            if point == .write { count += 1 }
                            return count
                        }
                        return (atCommit ? point == .commit : point == .write && write == failAt)
                            ? LedgerError.storageFull("test") : nil
                    }
                    let before = try Self.state(of: store)
                    #expect(pusher.push(mutations) == nil)
                    faults.inject(nil)
                    failed += 1
                    // Nothing of the failed transaction stays: the same answers as before it.
                    #expect(try Self.state(of: store) == before)
                } else if let results = pusher.push(mutations) {
                    applied += results.filter { if case .applied = $0 { true } else { false } }.count
                }
                if step % 10 == 0 { try Self.expectTotalsMatchRecords(pusher.engine, queries: 4, using: &generator) }
            }
            try Self.expectTotalsMatchRecords(pusher.engine, queries: 60, using: &generator)
            if round == 0 {
                // Reopened: built again from the records.
                store = try Self.open(path, faults: faults)
                pusher.engine = LedgerEngine(store: store, currency: .usd)
                try Self.expectTotalsMatchRecords(pusher.engine, queries: 60, using: &generator)
            }
        }
        // The corpus did what it says: many changes of every kind, and failures.
        #expect(applied > 600 && failed > 30)
        let live = try allRecords(pusher.engine).filter { !$0.deleted }.map(\.expense)
        #expect(Set(live.map(\.currency.code)) == Set(Self.currencies))
        #expect(Set(live.map { Array($0.category.utf8) }).count == Self.categories.count)
    }

    /// The store at `path`, without waiting for the disk at each commit: what is proved here is what the
    /// process holds, not what survives a crash (`ExpensedCrashTests`, `Scripts/crash-test`).
    static func open(_ path: String, faults: StoreFaults? = nil) throws -> SQLiteLedgerStore {
        let store = try SQLiteLedgerStore(path: path, name: "l", currency: .usd, faults: faults)
        try store.connection.execute("PRAGMA synchronous = OFF")
        return store
    }

    /// A create, an edit moving money, category, date or currency, a delete or a restore.
    static func randomMutation(_ known: [UUID: (version: Int64, deleted: Bool)],
                               using generator: inout SeededGenerator) -> (delete: Bool, id: UUID, fields: [String: JSONValue]) {
        let roll = Int.random(in: 0..<10, using: &generator)
        guard roll >= 4, let (id, state) = known.randomElement(using: &generator) else {
            return (false, UUID(), randomFields(all: true, using: &generator))
        }
        if state.deleted { return (false, id, randomFields(all: true, using: &generator)) }  // a restore
        if roll == 9 { return (true, id, [:]) }
        return (false, id, randomFields(all: false, using: &generator))
    }

    static func randomFields(all: Bool, using generator: inout SeededGenerator) -> [String: JSONValue] {
        let pick = all ? 0b1111 : Int.random(in: 1...0b1111, using: &generator)
        return fields(amount: pick & 1 != 0 ? Int64.random(in: 1...2_000_000, using: &generator) : nil,
                      currency: pick & 2 != 0 ? currencies.randomElement(using: &generator) : nil,
                      category: pick & 4 != 0 ? categories.randomElement(using: &generator) : nil,
                      date: pick & 8 != 0 ? randomDay(using: &generator).description : nil)
    }

    static func randomDay(using generator: inout SeededGenerator) -> CalendarDay {
        while true {
            if let day = CalendarDay(year: Int.random(in: 2024...2026, using: &generator),
                                     month: Int.random(in: 1...12, using: &generator),
                                     day: Int.random(in: 1...31, using: &generator)) { return day }
        }
    }

    /// A range that is open at one or both ends, whole months, a partial month, one day, across years or empty.
    static func randomRange(using generator: inout SeededGenerator) -> (from: CalendarDay?, to: CalendarDay?) {
        let day = randomDay(using: &generator), other = randomDay(using: &generator)
        let low = min(day, other), high = max(day, other)
        let firstOfMonth = CalendarDay(year: low.year, month: low.month, day: 1)
        var lastOfMonth = high
        while let next = CalendarDay(year: lastOfMonth.year, month: lastOfMonth.month, day: lastOfMonth.day + 1) {
            lastOfMonth = next
        }
        switch Int.random(in: 0..<8, using: &generator) {
        case 0: return (nil, nil)
        case 1: return (low, nil)
        case 2: return (nil, high)
        case 3: return (firstOfMonth, lastOfMonth)  // whole months
        case 4: return (day, day)  // one day
        case 5: return (low, CalendarDay(year: low.year, month: low.month, day: 28))  // within one month
        case 6: return (high, low)  // empty unless one day
        default: return (low, high)
        }
    }

    static func randomQuery(using generator: inout SeededGenerator) -> SummaryQuery {
        let (from, to) = randomRange(using: &generator)
        let category: String? = switch Int.random(in: 0..<6, using: &generator) {
        case 0: categories.randomElement(using: &generator)
        case 1: " \(categories.randomElement(using: &generator) ?? "") \n"  // trimmed before it is compared
        case 2: "unknown"
        default: nil
        }
        return SummaryQuery(from: from, to: to, category: category,
                            groupBy: SummaryGrouping.allCases.randomElement(using: &generator) ?? .none)
    }

    /// One day's, category's (by bytes) and currency's sum and count.
    struct DayKey: Hashable {
        var day: Int
        var category: [UInt8]
        var currency: String
    }

    struct Sum: Hashable {
        var amount: Int64 = 0
        var count: Int64 = 0
    }

    /// Summaries over random ranges and categories, the per-day totals of a random range and every currency's
    /// live total, each against the same figures recomputed from the live records.
    static func expectTotalsMatchRecords(_ engine: LedgerEngine, queries: Int, using generator: inout SeededGenerator) throws {
        let live = try allRecords(engine).filter { !$0.deleted }.map(\.expense)
        for _ in 0..<queries {
            let query = randomQuery(using: &generator)
            #expect(try engine.store.summary(query) == Aggregator.summarize(live, query: query), "\(query)")
        }
        for _ in 0..<3 {
            let range = randomRange(using: &generator)
            let from = try range.from ?? #require(CalendarDay(year: 2024, month: 1, day: 1))
            let to = try range.to ?? #require(CalendarDay(year: 2026, month: 12, day: 31))
            #expect(try dayTotals(engine.store, from: from, to: to) == recomputedDayTotals(live, from: from, to: to))
        }
        for code in currencies {
            let currency = try #require(Currency(code: code))
            #expect(try engine.store.liveTotal(currency: currency)
                    == live.filter { $0.currency == currency }.reduce(0) { $0 + $1.amount })
        }
    }

    static func dayTotals(_ store: any LedgerStore, from: CalendarDay, to: CalendarDay) throws -> [DayKey: Sum] {
        var totals: [DayKey: Sum] = [:]
        try store.forEachDayTotal(from: from, to: to) { total in
            let key = DayKey(day: total.day.ordinal, category: Array(total.category.utf8), currency: total.currency.code)
            #expect(total.count > 0 && totals[key] == nil, "one total per key, never an empty one")
            totals[key] = Sum(amount: total.amount, count: total.count)
        }
        return totals
    }

    static func recomputedDayTotals(_ live: [Expense], from: CalendarDay, to: CalendarDay) -> [DayKey: Sum] {
        var totals: [DayKey: Sum] = [:]
        for expense in live where expense.date >= from && expense.date <= to {
            let key = DayKey(day: expense.date.ordinal, category: Array(expense.category.utf8), currency: expense.currency.code)
            totals[key, default: Sum()].amount += expense.amount
            totals[key, default: Sum()].count += 1
        }
        return totals
    }

    /// What a failed transaction must leave as it was: every summary's and every day total's answer.
    static func state(of store: SQLiteLedgerStore) throws -> [String] {
        var answers: [String] = []
        for grouping in SummaryGrouping.allCases {
            answers.append("\(try store.summary(SummaryQuery(groupBy: grouping)))")
        }
        let from = try #require(CalendarDay(year: 2024, month: 1, day: 1)), to = try #require(CalendarDay(year: 2026, month: 12, day: 31))
        try store.forEachDayTotal(from: from, to: to) { answers.append("\($0)") }
        for code in currencies { answers.append("\(code) \(try store.liveTotal(currency: try #require(Currency(code: code))))") }
        return answers
    }

    // MARK: - Nothing written per group commit

    /// A group of creates spread over many days, categories and currencies makes the WAL grow by exactly as many
    /// pages as the same number of creates on one day, category and currency: the totals write nothing.
    @Test func aGroupCommitWritesNothingForTheTotals() throws {
        let directory = try TemporaryDirectory("live-totals-wal")
        defer { directory.remove() }
        let count = 400
        func walGrowth(_ name: String, spread: Bool) throws -> Int {
            let path = directory.file(name + ".sqlite")
            let store = try SQLiteLedgerStore(path: path, name: name, currency: .usd)
            let engine = LedgerEngine(store: store, currency: .usd)
            engine.clock = { 1_700_000_000 }
            let clientId = UUID()
            _ = try engine.push(clientId: clientId, items: [putItem(1, UUID(), base: 0, lunch())])
            try store.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            let items = (0..<count).map { index in
                // Same lengths either way (4-letter categories, 3-letter codes, YYYYMMDD days): the same rows.
                let day = CalendarDay(year: 2025, month: 1 + index % 12, day: 1 + index % 28)?.description ?? ""
                return putItem(Int64(2 + index), UUID(), base: 0, spread
                    ? fields(amount: 1000, currency: ["USD", "EUR", "GBP"][index % 3],
                             category: String(format: "c%03d", index), date: day)
                    : fields(amount: 1000, currency: "USD", category: "c000", date: "2025-01-01"))
            }
            #expect(try engine.push(clientId: clientId, items: items).results.allSatisfy {
                if case .applied = $0.status { true } else { false }
            })
            return try #require(FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
        }
        let together = try walGrowth("together", spread: false)
        let spread = try walGrowth("spread", spread: true)
        #expect(together > 0 && spread == together)
        // No table holds totals any more (migration 7).
        let store = try SQLiteLedgerStore(path: directory.file("spread.sqlite"), name: "spread", currency: .usd)
        #expect(try Self.tables(store.connection).isDisjoint(with: ["daily_totals", "monthly_totals"]))
    }

    static func tables(_ connection: SQLiteConnection) throws -> Set<String> {
        Set(try connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").map { $0.text(0) })
    }

    /// A live record whose currency or day the file holds as no currency or date (a file changed behind the
    /// daemon's back) makes `summary` and `stats` fail, never answer without it.
    @Test(arguments: ["currency = 'XYZ'", "day = 20250231"])
    func aDamagedLiveRecordFailsSummaryAndStats(damage: String) throws {
        let directory = try TemporaryDirectory("live-totals-damage")
        defer { directory.remove() }
        let path = directory.file("l.sqlite")
        do {
            let engine = LedgerEngine(store: try Self.open(path), currency: .usd)
            _ = try engine.push(clientId: UUID(), items: [putItem(1, UUID(), base: 0, lunch(700)),
                                                         putItem(2, UUID(), base: 0, lunch(5, category: "rent"))])
            try (engine.store as? SQLiteLedgerStore)?.connection.execute("UPDATE records SET \(damage) WHERE category = 'rent'")
        }
        let store = try Self.open(path)
        #expect(throws: LedgerError.self) { try store.summary(SummaryQuery()) }
        let from = try #require(CalendarDay(year: 2026, month: 1, day: 1)), to = try #require(CalendarDay(year: 2026, month: 12, day: 31))
        #expect(throws: LedgerError.self) { try store.forEachDayTotal(from: from, to: to) { _ in } }
        // The overflow rule still counts a live amount whose day is damaged (Protocol.md §7.5).
        #expect(try store.liveTotal(currency: .usd) == (damage.hasPrefix("day") ? 705 : 700))
    }

    // MARK: - Migration

    /// A file of the schema before the totals left the file, its tables filled as the older daemon kept them,
    /// opens: the tables are gone, the summaries are the same, and the older program refuses the file.
    @Test func aFileWithTheTotalsTablesOpensWithoutThemAndAnswersTheSame() throws {
        let directory = try TemporaryDirectory("live-totals-migration")
        defer { directory.remove() }
        let path = directory.file("old.sqlite")
        let older = Array(SQLiteLedgerStore.migrations.prefix(8))
        var generator = SeededGenerator(seed: 77)
        var expenses: [Expense] = []
        do {
            let connection = try SQLiteConnection(path: path, mode: .create)
            try connection.migrate(older)
            try connection.execute("BEGIN; INSERT INTO meta (key, value) VALUES ('name', 'old'), ('currency', 'EUR');")
            let insert = try connection.prepare("""
                INSERT INTO records (seq, id, version, deleted, amount, currency, category, day, note,
                    money_version, category_version, date_version, note_version)
                VALUES (?1, ?2, 1, ?3, ?4, ?5, ?6, ?7, '', 1, 1, 1, 1)
                """)
            for seq in 1...300 {
                let id = UUID()
                let fields = Self.randomFields(all: true, using: &generator)
                guard case .string(let code)? = fields["currency"], let currency = Currency(code: code),
                      case .string(let category)? = fields["category"], case .string(let date)? = fields["date"],
                      let day = CalendarDay(date) else { Issue.record("random fields"); return }
                let amount = Int64.random(in: 1...2_000_000, using: &generator), deleted = seq % 5 == 0
                try insert.run([.integer(Int64(seq)), SQLiteLedgerStore.blob(id), .integer(deleted ? 1 : 0), .integer(amount),
                                .text(code), .text(category), .integer(Int64(day.ordinal))])
                if !deleted {
                    expenses.append(Expense(id: id, amount: amount, currency: currency, category: category, date: day, note: ""))
                }
            }
            // What the older daemon kept in the same transaction as its records.
            try connection.execute("""
                INSERT INTO daily_totals (day, category, currency, amount, count)
                    SELECT day, category, currency, sum(amount), count(*) FROM records WHERE deleted = 0
                    GROUP BY day, category, currency;
                INSERT INTO monthly_totals (month, category, currency, amount, count)
                    SELECT day / 100, category, currency, sum(amount), count(*) FROM records WHERE deleted = 0
                    GROUP BY day / 100, category, currency;
                COMMIT;
                """)
            #expect(try Self.tables(connection).isSuperset(of: ["daily_totals", "monthly_totals"]))
        }
        let store = try SQLiteLedgerStore(path: path, name: "ignored", currency: .usd, verify: true)
        #expect(store.name == "old" && store.head == 300)
        #expect(try Self.tables(store.connection).isDisjoint(with: ["daily_totals", "monthly_totals"]))
        #expect(try store.connection.prepare("PRAGMA user_version").first { $0.int64(0) }
                == Int64(SQLiteLedgerStore.migrations.count))
        for _ in 0..<200 {
            let query = Self.randomQuery(using: &generator)
            #expect(try store.summary(query) == Aggregator.summarize(expenses, query: query), "\(query)")
        }
        let from = try #require(CalendarDay(year: 2024, month: 1, day: 1)), to = try #require(CalendarDay(year: 2026, month: 12, day: 31))
        #expect(try Self.dayTotals(store, from: from, to: to) == Self.recomputedDayTotals(expenses, from: from, to: to))
        // An older program, which would read totals from tables no longer kept, refuses the file.
        let connection = try SQLiteConnection(path: path, mode: .create)
        #expect(throws: SQLiteError.self) { try connection.migrate(older) }
    }
}
