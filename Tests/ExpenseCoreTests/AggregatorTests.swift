import ExpenseCore
import Foundation
import Testing
import TestSupport

@Suite("Aggregator")
struct AggregatorTests {
    static let max = ExpenseRules.maximumAmount

    @Test("nothing added: no totals, no groups")
    func empty() throws {
        let summary = try Aggregator.summarize([Expense](), query: SummaryQuery(groupBy: .category))
        #expect(summary.totals.isEmpty)
        #expect(summary.groups.isEmpty)
    }

    @Test("totals are per currency, never mixed, sorted by code, with counts")
    func perCurrency() throws {
        let expenses = try [
            makeExpense(1250, "USD"), makeExpense(50, "USD"), makeExpense(1000, "JPY"),
            makeExpense(1, "BHD"), makeExpense(999, "EUR"), makeExpense(1, "EUR"),
        ]
        let summary = try Aggregator.summarize(expenses)
        #expect(summary.totals == [
            CurrencyTotal(currency: TestCurrency.bhd, amount: 1, count: 1),
            CurrencyTotal(currency: TestCurrency.eur, amount: 1000, count: 2),
            CurrencyTotal(currency: TestCurrency.jpy, amount: 1000, count: 1),
            CurrencyTotal(currency: .usd, amount: 1300, count: 2),
        ])
        #expect(summary.groups.isEmpty)
    }

    @Test("grouped by category, per currency")
    func byCategory() throws {
        let expenses = try [
            makeExpense(100, "USD", category: "food"), makeExpense(200, "USD", category: "rent"),
            makeExpense(300, "EUR", category: "food"), makeExpense(400, "USD", category: "food"),
        ]
        let summary = try Aggregator.summarize(expenses, query: SummaryQuery(groupBy: .category))
        #expect(summary.groups == [
            GroupTotal(key: "food", currency: TestCurrency.eur, amount: 300, count: 1),
            GroupTotal(key: "food", currency: .usd, amount: 500, count: 2),
            GroupTotal(key: "rent", currency: .usd, amount: 200, count: 1),
        ])
        #expect(summary.totals.map(\.amount) == [300, 700])
    }

    @Test("grouped by month YYYY-MM, per currency")
    func byMonth() throws {
        let expenses = try [
            makeExpense(1, date: "2026-01-01"), makeExpense(2, date: "2026-01-31"), makeExpense(4, date: "2026-02-01"),
            makeExpense(8, date: "2025-12-31"), makeExpense(16, "JPY", date: "2026-01-15"),
        ]
        let summary = try Aggregator.summarize(expenses, query: SummaryQuery(groupBy: .month))
        #expect(summary.groups == [
            GroupTotal(key: "2025-12", currency: .usd, amount: 8, count: 1),
            GroupTotal(key: "2026-01", currency: TestCurrency.jpy, amount: 16, count: 1),
            GroupTotal(key: "2026-01", currency: .usd, amount: 3, count: 2),
            GroupTotal(key: "2026-02", currency: .usd, amount: 4, count: 1),
        ])
    }

    @Test("the date range is inclusive at both ends")
    func dateRange() throws {
        let expenses = try ["2026-01-31", "2026-02-01", "2026-02-15", "2026-02-28", "2026-03-01"]
            .enumerated().map { try makeExpense(Int64(1 << $0.offset), date: $0.element) }
        let from = try #require(CalendarDay("2026-02-01"))
        let to = try #require(CalendarDay("2026-02-28"))
        let both = try Aggregator.summarize(expenses, query: SummaryQuery(from: from, to: to))
        #expect(both.totals == [CurrencyTotal(currency: .usd, amount: 2 + 4 + 8, count: 3)])
        let onlyFrom = try Aggregator.summarize(expenses, query: SummaryQuery(from: from))
        #expect(onlyFrom.totals == [CurrencyTotal(currency: .usd, amount: 2 + 4 + 8 + 16, count: 4)])
        let onlyTo = try Aggregator.summarize(expenses, query: SummaryQuery(to: to))
        #expect(onlyTo.totals == [CurrencyTotal(currency: .usd, amount: 1 + 2 + 4 + 8, count: 4)])
        let oneDay = try Aggregator.summarize(expenses, query: SummaryQuery(from: from, to: from))
        #expect(oneDay.totals == [CurrencyTotal(currency: .usd, amount: 2, count: 1)])
        let inverted = try Aggregator.summarize(expenses, query: SummaryQuery(from: to, to: from))
        #expect(inverted.totals.isEmpty)
    }

    @Test("the category filter is trimmed and otherwise exact", arguments: [
        ("food", 3 as Int64), ("  food\n", 3), ("\tfood", 3), ("Food", 0), ("foo", 0), ("rent", 4), ("", 0),
    ])
    func categoryFilter(filter: String, expectedAmount: Int64) throws {
        let expenses = try [
            makeExpense(1, category: "food"), makeExpense(2, category: " food "), makeExpense(4, category: "rent"),
        ]
        let summary = try Aggregator.summarize(expenses, query: SummaryQuery(category: filter, groupBy: .category))
        #expect(summary.totals.map(\.amount).reduce(0, +) == expectedAmount)
        #expect(summary.groups.allSatisfy { $0.key == filter.trimmingCharacters(in: .whitespacesAndNewlines) })
    }

    /// Text is kept exactly as typed (no Unicode normalisation), so "café" typed precomposed and decomposed are
    /// two categories, as they are two stored values and as the daemon's `category` filter matches them, even
    /// though Swift's `==` calls them equal. Groups are sorted by the key's UTF-8 bytes.
    @Test("categories are grouped and matched by their exact text")
    func exactTextGroups() throws {
        let expenses = try [makeExpense(1, category: "caf\u{E9}"), makeExpense(2, category: "cafe\u{301}"),
                            makeExpense(4, category: "f")]
        let summary = try Aggregator.summarize(expenses, query: SummaryQuery(groupBy: .category))
        #expect(summary.groups.map { Array($0.key.utf8) } == [Array("cafe\u{301}".utf8), Array("caf\u{E9}".utf8), Array("f".utf8)])
        #expect(summary.groups.map(\.amount) == [2, 1, 4])
        let filtered = try Aggregator.summarize(expenses, query: SummaryQuery(category: "cafe\u{301}"))
        #expect(filtered.totals.first?.count == 1)
        #expect(filtered.totals.first?.amount == 2)
    }

    // MARK: overflow

    /// Int64.max = 2^63−1 and the largest amount is 2^53−1, so 1024 largest amounts sum to 2^63−1024 (fits),
    /// and 1023 minor units more reach Int64.max exactly; one more unit, or a 1025th largest amount, overflows.
    @Test("1024 × (2^53−1) fits; + 1023 is Int64.max; one more throws amount_overflow")
    func overflowBoundary() throws {
        let maxima = try (0..<1024).map { _ in try makeExpense(Self.max) }
        let fits = try Aggregator.summarize(maxima)
        #expect(fits.totals == [CurrencyTotal(currency: .usd, amount: Int64.max - 1023, count: 1024)])

        let exact = try Aggregator.summarize(maxima + [makeExpense(1023)])
        #expect(exact.totals.first?.amount == Int64.max)

        expectValidationError("amount_overflow", field: .amount) {
            try Aggregator.summarize(maxima + [makeExpense(1023), makeExpense(1)])
        }
        expectValidationError("amount_overflow", field: .amount) {
            try Aggregator.summarize(maxima + [makeExpense(Self.max)])
        }
        // Grouped summaries overflow the same way.
        expectValidationError("amount_overflow") {
            try Aggregator.summarize(maxima + [makeExpense(Self.max)], query: SummaryQuery(groupBy: .month))
        }
    }

    @Test("an overflow in one currency is not hidden by others; other currencies do not add to it")
    func overflowIsPerCurrency() throws {
        let usd = try (0..<1024).map { _ in try makeExpense(Self.max, "USD") }
        let eur = try (0..<1024).map { _ in try makeExpense(Self.max, "EUR") }
        // 2048 largest amounts would overflow if mixed; per currency each fits.
        let summary = try Aggregator.summarize(usd + eur)
        #expect(summary.totals.map(\.amount) == [Int64.max - 1023, Int64.max - 1023])
    }

    @Test("pre-summed buckets: counts and amounts are both overflow-checked, and a failed add changes nothing")
    func buckets() throws {
        let day = try #require(CalendarDay("2026-01-05"))
        var aggregator = Aggregator(query: SummaryQuery(groupBy: .category))
        try aggregator.add(amount: Int64.max - 10, count: 3, currency: .usd, category: "food", date: day)
        let before = aggregator.summary
        expectValidationError("amount_overflow") {
            try aggregator.add(amount: 11, count: 1, currency: .usd, category: "food", date: day)
        }
        #expect(aggregator.summary == before)
        expectValidationError("amount_overflow") {
            try aggregator.add(amount: 1, count: Int64.max, currency: .usd, category: "rent", date: day)
        }
        #expect(aggregator.summary == before)
        try aggregator.add(amount: 10, count: 1, currency: .usd, category: "rent", date: day)
        #expect(aggregator.summary.totals == [CurrencyTotal(currency: .usd, amount: Int64.max, count: 4)])
        #expect(aggregator.summary.groups.map(\.count) == [3, 1])
    }

    @Test("checkedSum", arguments: [
        (Int64.max, 0 as Int64, true), (Int64.max, 1, false), (Int64.min, -1, false), (Int64.min, 0, true),
        (Int64.max - 5, 5, true), (-1, 1, true),
    ])
    func checkedSum(a: Int64, b: Int64, fits: Bool) throws {
        if fits {
            #expect(try Aggregator.checkedSum(a, b) == a + b)
        } else {
            expectValidationError("amount_overflow") { try Aggregator.checkedSum(a, b) }
        }
    }

    // MARK: a naive recomputation

    @Test("summarize equals a naive recomputation on a seeded random set", arguments: SummaryGrouping.allCases)
    func matchesNaive(grouping: SummaryGrouping) throws {
        var generator = SeededGenerator(seed: 2026)
        let currencies = ["USD", "EUR", "JPY", "BHD"]
        let categories = ["food", "rent", "travel", "café", "食費"]
        var expenses: [Expense] = []
        for _ in 0..<2_000 {
            let year = Int.random(in: 2024...2026, using: &generator)
            let month = Int.random(in: 1...12, using: &generator)
            let day = Int.random(in: 1...28, using: &generator)
            let date = try #require(CalendarDay(year: year, month: month, day: day))
            expenses.append(try makeExpense(
                Int64.random(in: 1...1_000_000_000, using: &generator),
                currencies.randomElement(using: &generator) ?? "USD",
                category: categories.randomElement(using: &generator) ?? "food",
                date: date.description))
        }
        let queries = [
            SummaryQuery(groupBy: grouping),
            SummaryQuery(from: CalendarDay("2025-03-10"), to: CalendarDay("2025-11-02"), groupBy: grouping),
            SummaryQuery(category: " rent ", groupBy: grouping),
        ]
        for query in queries {
            let summary = try Aggregator.summarize(expenses, query: query)
            var totals: [String: (Int64, Int64)] = [:]
            var groups: [String: (Int64, Int64)] = [:]
            for expense in expenses {
                if let from = query.from, expense.date.ordinal < from.ordinal { continue }
                if let to = query.to, expense.date.ordinal > to.ordinal { continue }
                if let category = query.category, category.trimmingCharacters(in: .whitespaces) != expense.category { continue }
                let code = expense.currency.code
                totals[code, default: (0, 0)].0 += expense.amount
                totals[code, default: (0, 0)].1 += 1
                let key: String? = switch grouping {
                case .none: nil
                case .category: expense.category
                case .month: expense.date.monthKey
                }
                if let key { groups[key + "|" + code, default: (0, 0)].0 += expense.amount }
                if let key { groups[key + "|" + code, default: (0, 0)].1 += 1 }
            }
            #expect(summary.totals.count == totals.count)
            for total in summary.totals {
                #expect(totals[total.currency.code]?.0 == total.amount)
                #expect(totals[total.currency.code]?.1 == total.count)
            }
            #expect(summary.groups.count == groups.count)
            for group in summary.groups {
                let naive = groups[group.key + "|" + group.currency.code]
                #expect(naive?.0 == group.amount)
                #expect(naive?.1 == group.count)
            }
            #expect(summary.totals.map(\.currency.code) == summary.totals.map(\.currency.code).sorted())
        }
    }
}
