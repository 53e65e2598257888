import ExpenseCore
import Foundation
import Testing

@Suite("PeriodStatistics")
struct PeriodStatisticsTests {
    static func day(_ text: String) -> CalendarDay {
        guard let day = CalendarDay(text) else { preconditionFailure("bad test day \(text)") }
        return day
    }

    static func expense(_ amount: Int64, _ category: String, _ date: String, _ currency: String = "USD") -> Expense {
        guard let currency = Currency(code: currency) else { preconditionFailure("bad test currency") }
        return Expense(id: UUID(), amount: amount, currency: currency, category: category, date: day(date), note: "")
    }

    @Test("day numbers round-trip and weekdays are ISO (1970-01-01 a Thursday, 1900-01-01 a Monday)")
    func dayNumbers() throws {
        #expect(Self.day("1970-01-01").dayNumber == 0)
        #expect(Self.day("1970-01-01").isoWeekday == 4)
        #expect(Self.day("1900-01-01").isoWeekday == 1)
        #expect(Self.day("2026-12-01").isoWeekday == 2)
        // Every day of 1999-2030 (leap years, 2000 included) one after the other, then a sample of all the range.
        var current = Self.day("1999-01-01")
        while current < Self.day("2030-12-31") {
            let next = try #require(current.adding(days: 1))
            #expect(next.dayNumber == current.dayNumber + 1 && next > current)
            current = next
        }
        for number in stride(from: ExpenseRules.earliestDate.dayNumber, through: ExpenseRules.latestDate.dayNumber, by: 97) {
            #expect(CalendarDay(dayNumber: number)?.dayNumber == number)
        }
        #expect(ExpenseRules.latestDate.adding(days: 1) == nil)
        #expect(ExpenseRules.earliestDate.adding(days: -1) == nil)
    }

    @Test("ISO weeks at year boundaries", arguments: [
        // 2026 starts on a Thursday: its 1 January is in week 1, and 2026 has 53 weeks.
        ("2026-01-01", "2025-12-29", "2026-W01"),
        ("2025-12-28", "2025-12-22", "2025-W52"),
        ("2027-01-01", "2026-12-28", "2026-W53"),
        ("2027-01-03", "2026-12-28", "2026-W53"),
        ("2027-01-04", "2027-01-04", "2027-W01"),
        // 2021 starts on a Friday: its first days are in week 53 of 2020.
        ("2021-01-01", "2020-12-28", "2020-W53"),
        // 2024-12-30 (a Monday) is already week 1 of 2025.
        ("2024-12-31", "2024-12-30", "2025-W01"),
        ("2024-02-29", "2024-02-26", "2024-W09"),
    ])
    func isoWeeks(day: String, monday: String, label: String) {
        let start = StatisticsPeriod.week.start(containing: Self.day(day))
        #expect(start == Self.day(monday))
        #expect(start.isoWeekday == 1)
        #expect(StatisticsPeriod.week.label(startingOn: start) == label)
        #expect(StatisticsPeriod.week.end(startingOn: start) == start.adding(days: 6))
    }

    @Test("quarters are calendar quarters", arguments: [
        ("2026-01-01", "2026-01-01", "2026-03-31", "2026-Q1"),
        ("2026-03-31", "2026-01-01", "2026-03-31", "2026-Q1"),
        ("2026-04-01", "2026-04-01", "2026-06-30", "2026-Q2"),
        ("2026-08-15", "2026-07-01", "2026-09-30", "2026-Q3"),
        ("2026-12-31", "2026-10-01", "2026-12-31", "2026-Q4"),
    ])
    func quarters(day: String, start: String, end: String, label: String) {
        let first = StatisticsPeriod.quarter.start(containing: Self.day(day))
        #expect(first == Self.day(start))
        #expect(StatisticsPeriod.quarter.end(startingOn: first) == Self.day(end))
        #expect(StatisticsPeriod.quarter.label(startingOn: first) == label)
    }

    @Test("empty periods are zero rows and count in the average")
    func averagesWithEmptyPeriods() throws {
        let query = try StatisticsQuery(period: .month, from: Self.day("2026-01-01"), to: Self.day("2026-04-30"),
                                        today: Self.day("2026-12-01"))
        let stats = try PeriodStatisticsBuilder.statistics(
            [Self.expense(1000, "food", "2026-01-10"), Self.expense(500, "rent", "2026-01-31"),
             Self.expense(101, "food", "2026-04-30")], query: query)
        #expect(stats.periods.map(\.label) == ["2026-01", "2026-02", "2026-03", "2026-04"])
        let table = try #require(stats.tables.first)
        #expect(table.rows.map(\.total) == [1500, 0, 0, 101])
        #expect(table.rows.map(\.count) == [2, 0, 0, 1])
        #expect(table.total == 1601)
        #expect(table.count == 3)
        // 1601 / 4 = 400.25 → 400 (four periods, two of them empty).
        #expect(table.average == 400)
        #expect(table.categories.isEmpty)
        #expect(stats.periods.allSatisfy { !$0.partial && !$0.current })
    }

    @Test("averages round halves away from zero")
    func rounding() {
        #expect(CurrencyStatistics.average(10, over: 4) == 3)
        #expect(CurrencyStatistics.average(9, over: 4) == 2)
        #expect(CurrencyStatistics.average(-10, over: 4) == -3)
        #expect(CurrencyStatistics.average(Int64.max, over: 1) == Int64.max)
        #expect(CurrencyStatistics.average(Int64.max, over: 2) == Int64.max / 2 + 1)
        #expect(CurrencyStatistics.average(7, over: 0) == 0)
    }

    @Test("by category: one column per category, column totals and averages; currencies never mixed")
    func byCategory() throws {
        let query = try StatisticsQuery(period: .quarter, from: Self.day("2026-01-01"), to: Self.day("2026-12-31"),
                                        byCategory: true, today: Self.day("2026-05-02"))
        let stats = try PeriodStatisticsBuilder.statistics(
            [Self.expense(100, "rent", "2026-02-01"), Self.expense(30, "food", "2026-03-01"),
             Self.expense(70, "food", "2026-11-11"), Self.expense(5000, "food", "2026-11-11", "JPY"),
             Self.expense(1, "food", "2025-12-31"), Self.expense(1, "food", "2027-01-01")], query: query)
        #expect(stats.tables.map(\.currency.code) == ["JPY", "USD"])
        let usd = try #require(stats.tables.last)
        #expect(usd.categories == ["food", "rent"])
        #expect(usd.rows.map(\.amounts) == [[30, 100], [0, 0], [0, 0], [70, 0]])
        #expect(usd.rows.map(\.total) == [130, 0, 0, 70])
        #expect(usd.columnTotals == [100, 100])
        #expect(usd.columnAverages == [25, 25])
        #expect(usd.total == 200)
        #expect(usd.average == 50)
        let jpy = try #require(stats.tables.first)
        #expect(jpy.total == 5000)
        #expect(jpy.rows.map(\.total) == [0, 0, 0, 5000])
        // Q2 holds today (2026-05-02): current and partial; the others are whole.
        #expect(stats.periods.map(\.current) == [false, true, false, false])
        #expect(stats.periods.map(\.partial) == [false, true, false, false])
    }

    @Test("--currency keeps one table")
    func oneCurrency() throws {
        let query = try StatisticsQuery(period: .year, from: Self.day("2026-01-01"), to: Self.day("2026-12-31"),
                                        currency: Currency(code: "JPY"), today: Self.day("2026-05-02"))
        let stats = try PeriodStatisticsBuilder.statistics(
            [Self.expense(100, "rent", "2026-02-01"), Self.expense(5000, "food", "2026-11-11", "JPY")], query: query)
        #expect(stats.tables.map(\.currency.code) == ["JPY"])
    }

    @Test("categories are columns by their bytes: NFC and NFD are two columns")
    func exactCategories() throws {
        let query = try StatisticsQuery(period: .year, from: Self.day("2026-01-01"), to: Self.day("2026-12-31"),
                                        byCategory: true, today: Self.day("2026-05-02"))
        let stats = try PeriodStatisticsBuilder.statistics(
            [Self.expense(1, "caf\u{E9}", "2026-02-01"), Self.expense(2, "cafe\u{301}", "2026-02-01")], query: query)
        #expect(try #require(stats.tables.first).categories.count == 2)
    }

    @Test("a range that cuts periods marks its edge rows partial and counts only the days inside")
    func cutRange() throws {
        let query = try StatisticsQuery(period: .week, from: Self.day("2026-01-01"), to: Self.day("2026-01-13"),
                                        today: Self.day("2030-01-01"))
        #expect(query.spans.map(\.label) == ["2026-W01", "2026-W02", "2026-W03"])
        #expect(query.spans.map(\.start) == [Self.day("2026-01-01"), Self.day("2026-01-05"), Self.day("2026-01-12")])
        #expect(query.spans.map(\.end) == [Self.day("2026-01-04"), Self.day("2026-01-11"), Self.day("2026-01-13")])
        #expect(query.spans.map(\.partial) == [true, false, true])
        let stats = try PeriodStatisticsBuilder.statistics(
            [Self.expense(9, "x", "2025-12-29"), Self.expense(1, "x", "2026-01-04"), Self.expense(2, "x", "2026-01-05"),
             Self.expense(4, "x", "2026-01-13"), Self.expense(8, "x", "2026-01-14")], query: query)
        #expect(try #require(stats.tables.first).rows.map(\.total) == [1, 2, 4])
    }

    @Test("the default range is the current period and the eleven before it")
    func defaultRange() throws {
        let today = Self.day("2026-03-18")
        let month = try StatisticsQuery.resolving(period: .month, from: nil, to: nil, today: today)
        #expect(month.from == Self.day("2025-04-01"))
        #expect(month.to == Self.day("2026-03-31"))
        #expect(month.spans.count == 12)
        #expect(month.spans.last?.current == true)
        #expect(month.spans.last?.partial == true)
        let week = try StatisticsQuery.resolving(period: .week, from: nil, to: nil, today: today)
        #expect(week.spans.count == 12)
        #expect(week.to == Self.day("2026-03-22"))
        let fromOnly = try StatisticsQuery.resolving(period: .year, from: Self.day("2020-06-01"), to: nil, today: today)
        #expect(fromOnly.to == Self.day("2026-12-31"))
        #expect(fromOnly.spans.first?.partial == true)
        let future = try StatisticsQuery.resolving(period: .month, from: Self.day("2027-02-10"), to: nil, today: today)
        #expect(future.to == Self.day("2027-02-28"))
    }

    @Test("ranges are bounded: from after to, more than 1000 periods")
    func bounds() {
        #expect(throws: StatisticsError.emptyRange(from: Self.day("2026-02-01"), to: Self.day("2026-01-01"))) {
            try StatisticsQuery(period: .month, from: Self.day("2026-02-01"), to: Self.day("2026-01-01"), today: Self.day("2026-01-01"))
        }
        #expect(throws: StatisticsError.tooManyPeriods(1001)) {
            try StatisticsQuery(period: .month, from: Self.day("1900-01-01"), to: Self.day("1983-05-31"), today: Self.day("2026-01-01"))
        }
        #expect(throws: Never.self) {
            try StatisticsQuery(period: .year, from: ExpenseRules.earliestDate, to: Self.day("2899-12-31"), today: Self.day("2026-01-01"))
        }
        let last = try? StatisticsQuery(period: .week, from: Self.day("9999-12-20"), to: ExpenseRules.latestDate, today: Self.day("2026-01-01"))
        #expect(last?.spans.last?.end == ExpenseRules.latestDate)
    }

    @Test("an overflowing sum is amount_overflow, never a wrong number")
    func overflow() throws {
        let query = try StatisticsQuery(period: .month, from: Self.day("2026-01-01"), to: Self.day("2026-02-28"),
                                        byCategory: true, today: Self.day("2026-01-01"))
        // Each cell fits; the row (two categories) does not.
        var builder = PeriodStatisticsBuilder(query: query)
        try builder.add(amount: Int64.max, count: 1, currency: Currency.usd, category: "a", date: Self.day("2026-01-01"))
        try builder.add(amount: 1, count: 1, currency: Currency.usd, category: "b", date: Self.day("2026-01-01"))
        #expect(throws: StatisticsError.amountOverflow(Currency.usd)) { try builder.build() }
        // A column over two months does not fit either.
        var column = PeriodStatisticsBuilder(query: query)
        try column.add(amount: Int64.max, count: 1, currency: Currency.usd, category: "a", date: Self.day("2026-01-01"))
        try column.add(amount: 1, count: 1, currency: Currency.usd, category: "a", date: Self.day("2026-02-01"))
        #expect(throws: StatisticsError.amountOverflow(Currency.usd)) { try column.build() }
        // One cell.
        var cell = PeriodStatisticsBuilder(query: query)
        try cell.add(amount: Int64.max, count: 1, currency: Currency.usd, category: "a", date: Self.day("2026-01-01"))
        #expect(throws: StatisticsError.amountOverflow(Currency.usd)) {
            try cell.add(amount: 1, count: 1, currency: Currency.usd, category: "a", date: Self.day("2026-01-02"))
        }
    }
}
