import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite
import Testing
import TestSupport
@testable import ExpenseClient

/// The live totals every store keeps per currency (``LiveTotal``, `live_total` in SQLite) equal a full recount
/// of the listing after random adds, edits, deletes, pulls and bulk loads, and the local overflow rule refuses
/// exactly when a recount says the change would not fit.
@Suite struct LiveTotalTests {
    private static let currencies: [Currency] = ["USD", "EUR", "JPY"].compactMap { Currency(code: $0) }

    /// The recount from the listing: exact sums (`Int128`) and the live count.
    private static func recount(_ store: any ExpenseStore) throws -> (sums: [Currency: Int128], count: Int) {
        var sums: [Currency: Int128] = [:]
        var count = 0
        for expense in try store.expenses(matching: ExpenseFilter()) {
            sums[expense.currency, default: 0] += Int128(expense.amount)
            count += 1
        }
        return (sums, count)
    }

    /// The store's totals against the recount; for SQLite also the table against a GROUP BY of its rows.
    private static func expectTotalsMatch(_ store: any ExpenseStore, _ step: String) throws {
        let (sums, count) = try recount(store)
        #expect(try store.liveCount() == count, "\(step)")
        for currency in currencies {
            #expect(try store.liveTotal(currency: currency) == Int64(exactly: sums[currency] ?? 0), "\(step) \(currency.code)")
        }
        if let sqlite = store as? SQLiteExpenseStore {
            let table = try sqlite.connection.prepare("SELECT currency, high, low, count FROM live_total WHERE count != 0 ORDER BY 1")
                .map { [$0.text(0), String($0.int64(1)), String($0.int64(2)), String($0.int64(3))] }
            let grouped = try sqlite.connection.prepare("SELECT * FROM (\(SQLiteExpenseStore.recountSQL)) ORDER BY 1")
                .map { [$0.text(0), String($0.int64(1)), String($0.int64(2)), String($0.int64(3))] }
            #expect(table == grouped, "\(step)")
        }
    }

    /// Whether adding `amounts` to each currency's recounted total fits (what the rule must allow).
    private static func fits(_ sums: [Currency: Int128], adding amounts: [(Currency, Int64)], removing old: Expense? = nil) -> Bool {
        var after: [Currency: Int128] = [:]
        for (currency, amount) in amounts {
            let stored = sums[currency] ?? 0
            if Int64(exactly: stored) == nil { return false }
            let base = after[currency] ?? (stored - (old?.currency == currency ? Int128(old?.amount ?? 0) : 0))
            after[currency] = base + Int128(amount)
        }
        return after.values.allSatisfy { Int64(exactly: $0) != nil }
    }

    private static func amount(_ random: inout SeededGenerator) -> Int64 {
        Int64.random(in: 0..<10, using: &random) < 6 ? ExpenseRules.maximumAmount : Int64.random(in: 1...1_000_000, using: &random)
    }

    private static func currency(_ random: inout SeededGenerator) -> Currency {
        // Mostly USD, so that its total passes Int64 (about 1,024 maximal amounts) within the run.
        Int.random(in: 0..<4, using: &random) < 2 ? .usd : currencies[Int.random(in: 0..<currencies.count, using: &random)]
    }

    private static func expense(_ id: UUID, _ random: inout SeededGenerator) throws -> Expense {
        try ExpenseValidator.validate(ExpenseDraft(
            id: id.uuidString, amount: amount(&random), currency: currency(&random).code, category: "c",
            date: "2026-0\(Int.random(in: 1...9, using: &random))-1\(Int.random(in: 0...9, using: &random))"))
    }

    @Test(arguments: CacheStoreKind.allCases)
    func totalsEqualARecountAfterRandomChanges(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        var random = SeededGenerator(seed: 0x7074_6f74_616c_73)
        var serverVersions: [UUID: Int64] = [:]
        var seq: Int64 = 0
        var refusals = 0
        // Start 4 maximal amounts short of Int64 in USD, so that the run crosses the boundary both ways.
        let start = try (1...1020).map { index in
            let id = UUID()
            serverVersions[id] = 1
            let expense = try ExpenseValidator.validate(ExpenseDraft(
                id: id.uuidString, amount: ExpenseRules.maximumAmount, currency: "USD", category: "c", date: "2026-01-01"))
            return Record(expense: expense, version: 1, seq: Int64(index), deleted: false)
        }
        seq = Int64(start.count)
        try ledger.apply(pulled: start, cursor: seq)
        for step in 0..<80 {
            let live = try ledger.list()
            let before = try Self.recount(ledger.store)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<3:  // a pulled page: new records, changes and tombstones of known ones, no local rule
                var page: [Record] = []
                for _ in 0..<Int.random(in: 1...12, using: &random) {
                    seq += 1
                    let known = serverVersions.keys.randomElement(using: &random)
                    if let id = known, Int.random(in: 0..<4, using: &random) == 0 {
                        let version = (serverVersions[id] ?? 0) + 1
                        serverVersions[id] = version
                        page.append(Record(expense: try Self.expense(id, &random), version: version, seq: seq,
                                           deleted: Int.random(in: 0..<4, using: &random) == 0))
                    } else {
                        let id = UUID()
                        serverVersions[id] = 1
                        page.append(Record(expense: try Self.expense(id, &random), version: 1, seq: seq, deleted: false))
                    }
                }
                try ledger.apply(pulled: page, cursor: seq)
            case 3..<6:  // an add (or an import) of one to three expenses
                let drafts = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                    ExpenseDraft(amount: Self.amount(&random), currency: Self.currency(&random).code, category: "c",
                                 date: "2026-02-02")
                }
                let allowed = Self.fits(before.sums, adding: drafts.map { (Currency(code: $0.currency?.text ?? "")!, $0.amount ?? 0) })
                do {
                    try ledger.add(drafts)
                    #expect(allowed, "step \(step): an add past Int64 was allowed")
                } catch let error as LedgerLimitError {
                    guard case .totalOverflow = error else { throw error }
                    #expect(!allowed, "step \(step): an add that fits was refused")
                    #expect(try Self.recount(ledger.store).count == before.count)
                    refusals += 1
                }
            case 6..<8:  // an edit of the amount or the currency
                guard let old = live.randomElement(using: &random) else { continue }
                let changes = Bool.random(using: &random)
                    ? ExpenseDraft(amount: Self.amount(&random)) : ExpenseDraft(currency: Self.currency(&random).code)
                let updated = try ExpenseValidator.validate(old.draft.merging(changes))
                let allowed = updated == old || Self.fits(before.sums, adding: [(updated.currency, updated.amount)], removing: old)
                do {
                    try ledger.edit(try ledger.find(old.idString), changes: changes)
                    #expect(allowed, "step \(step): an edit past Int64 was allowed")
                } catch let error as LedgerLimitError {
                    guard case .totalOverflow = error else { throw error }
                    #expect(!allowed, "step \(step): an edit that fits was refused")
                    refusals += 1
                }
            default:
                guard let old = live.randomElement(using: &random) else { continue }
                try ledger.delete(try ledger.find(old.idString))
            }
            try Self.expectTotalsMatch(ledger.store, "step \(step)")
        }
        // The run reached totals past Int64 and the rule refused some changes.
        #expect(refusals > 0)
        if kind.isPersistent {
            try Self.expectTotalsMatch(try kind.open(in: directory), "reopened")
        }
    }

    /// A first sync in bulk: pages with an id pulled twice and tombstones, another process's add ending the bulk
    /// load halfway, then record-by-record pages; the totals equal a recount at the end and are kept after it.
    @Test(arguments: CacheStoreKind.allCases)
    func totalsEqualARecountAfterABulkLoad(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let store = try kind.open(in: directory)
        let ledger = LocalLedger(store: store)
        var random = SeededGenerator(seed: 42)
        let twice = UUID()
        var seq: Int64 = 0
        func page(_ count: Int) throws -> [Record] {
            try (0..<count).map { index in
                seq += 1
                let id = seq == 7 || seq == 260 ? twice : UUID()
                return Record(expense: try Self.expense(id, &random), version: seq == 260 ? 2 : 1, seq: seq,
                              deleted: index % 9 == 0 && id != twice)
            }
        }
        _ = try store.beginBulkLoad()
        try ledger.apply(pulled: try page(250), cursor: seq)
        try ledger.apply(pulled: try page(30), cursor: seq)
        if kind == .sqlite {
            // Another process adds meanwhile: its write ends the bulk load (indexes and triggers come back).
            let other = LocalLedger(store: try kind.open(in: directory))
            try other.add(ExpenseDraft(amount: 5, currency: "EUR", category: "c", date: "2026-01-01"))
        }
        try ledger.apply(pulled: try page(40), cursor: seq)
        try store.endBulkLoad()
        try Self.expectTotalsMatch(store, "after the bulk load")
        try ledger.add(ExpenseDraft(amount: 7, currency: "JPY", category: "c", date: "2026-01-01"))
        try ledger.delete(try ledger.find(twice.uuidString))
        try Self.expectTotalsMatch(store, "after changes")
    }

    /// A bulk load alone, duplicates dropped at its end: the page totals are recounted.
    @Test func aBulkLoadWithADuplicateIsRecounted() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteExpenseStore(path: directory.path + "/cache.sqlite")
        let ledger = LocalLedger(store: store)
        var random = SeededGenerator(seed: 7)
        let id = UUID()
        #expect(try store.beginBulkLoad())
        try ledger.apply(pulled: [Record(expense: try Self.expense(id, &random), version: 1, seq: 1, deleted: false)], cursor: 1)
        try ledger.apply(pulled: [Record(expense: try Self.expense(id, &random), version: 2, seq: 2, deleted: false)], cursor: 2)
        #expect(try store.connection.prepare("SELECT sum(count) FROM live_total").first { $0.int64(0) } == 2)
        try store.endBulkLoad()
        #expect(try store.liveCount() == 1)
        try Self.expectTotalsMatch(store, "after the bulk load")
    }

    /// `LiveTotal` is exact past `Int64` and back.
    @Test func liveTotalIsExactPastInt64() {
        var total = LiveTotal()
        for _ in 0..<1024 { total.add(ExpenseRules.maximumAmount) }
        #expect(total.sum == 1024 * ExpenseRules.maximumAmount)
        total.add(ExpenseRules.maximumAmount)
        #expect(total.sum == nil)
        total.remove(ExpenseRules.maximumAmount)
        total.add(Int64.max - 1024 * ExpenseRules.maximumAmount)
        #expect(total.sum == Int64.max && total.count == 1025)
        total.add(1)
        #expect(total.sum == nil)
        total.remove(1)
        #expect(total.sum == Int64.max)
    }
}
