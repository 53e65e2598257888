import ExpenseCore
import Foundation
import Testing

private func day(_ text: String) throws -> CalendarDay { try #require(CalendarDay(text)) }

@Suite("Budget periods")
struct BudgetPeriodsTests {
    @Test("day arithmetic round-trips through days since 1970 across the whole calendar")
    func dayNumber() throws {
        #expect(try day("1970-01-01").dayNumber == 0)
        #expect(try day("2000-03-01").dayNumber == 11_017)
        #expect(try day("1900-01-01").dayNumber == -25_567)
        for text in ["1900-01-01", "1900-02-28", "1900-03-01", "2024-02-29", "2026-12-31", "9999-12-31"] {
            let value = try day(text)
            #expect(CalendarDay(dayNumber: value.dayNumber) == value)
        }
        #expect(try day("2024-02-28").adding(days: 1) == (try day("2024-02-29")))
        #expect(try day("2025-12-31").adding(days: 1) == (try day("2026-01-01")))
        #expect(try day("9999-12-31").adding(days: 1) == nil)
    }

    @Test("a month from the 31st is clamped, and the next is the 31st again (computed from the anchor)")
    func monthEndsClamp() throws {
        let periods = BudgetPeriods(length: .month, anchor: try day("2026-01-31"))
        let starts = (0..<4).compactMap { periods.start(ofPeriod: $0)?.description }
        #expect(starts == ["2026-01-31", "2026-02-28", "2026-03-31", "2026-04-30"])
        let february = try #require(periods.period(containing: try day("2026-03-01")))
        #expect(february.start.description == "2026-02-28")
        #expect(february.end.description == "2026-03-30")
    }

    @Test("a 25th-anchored pay period runs from the 25th to the 24th across a year end")
    func payPeriodAcrossYearEnd() throws {
        let periods = BudgetPeriods(length: .month, anchor: try day("2025-01-25"))
        let period = try #require(periods.period(containing: try day("2026-01-03")))
        #expect(period.start.description == "2025-12-25")
        #expect(period.end.description == "2026-01-24")
        #expect(period.index == 11)
        let next = try #require(periods.period(containing: try day("2026-01-25")))
        #expect(next.start.description == "2026-01-25")
        #expect(next.end.description == "2026-02-24")
    }

    @Test("weeks, quarters and years; a day before the start has no period")
    func otherLengths() throws {
        let weeks = BudgetPeriods(length: .week, anchor: try day("2026-01-05"))
        let week = try #require(weeks.period(containing: try day("2026-01-14")))
        #expect(week.start.description == "2026-01-12")
        #expect(week.end.description == "2026-01-18")
        let quarters = BudgetPeriods(length: .quarter, anchor: try day("2026-01-01"))
        let quarter = try #require(quarters.period(containing: try day("2026-05-15")))
        #expect((quarter.start.description, quarter.end.description) == ("2026-04-01", "2026-06-30"))
        let years = BudgetPeriods(length: .year, anchor: try day("2024-02-29"))
        let year = try #require(years.period(containing: try day("2025-03-01")))
        #expect((year.start.description, year.end.description) == ("2025-02-28", "2026-02-27"))
        #expect(years.start(ofPeriod: 4)?.description == "2028-02-29")
        #expect(weeks.period(containing: try day("2026-01-04")) == nil)
    }

    @Test("every day of several years lies in exactly the period that contains it")
    func periodsTile() throws {
        for length in BudgetPeriodLength.allCases {
            let periods = BudgetPeriods(length: length, anchor: try day("2024-01-30"))
            var current = try day("2024-01-30")
            var expected = try #require(periods.period(index: 0))
            for _ in 0..<800 {
                if current > expected.end { expected = try #require(periods.period(index: expected.index + 1)) }
                #expect(expected.start == current || expected.contains(current))
                #expect(periods.period(containing: current) == expected, "\(length) \(current)")
                current = try #require(current.adding(days: 1))
            }
        }
    }
}
