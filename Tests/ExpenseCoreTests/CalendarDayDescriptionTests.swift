import Testing
@testable import ExpenseCore

/// `CalendarDay.description`'s byte-writing fast path against the general zero-padded form.
@Suite struct CalendarDayDescriptionTests {
    @Test func everyDayOfSomeYearsAndTheEdgesReadsTheSameOnBothPaths() {
        var days: [CalendarDay] = []
        for year in [1900, 1904, 1999, 2000, 2024, 2026, 2100, 2400, 9999] {
            for month in 1...12 {
                for day in 1...31 { if let value = CalendarDay(year: year, month: month, day: day) { days.append(value) } }
            }
        }
        days.append(contentsOf: [CalendarDay(uncheckedYear: 7, month: 3, day: 4), CalendarDay(uncheckedYear: 12_345, month: 1, day: 2),
                                 CalendarDay(uncheckedYear: -5, month: 1, day: 1), CalendarDay(uncheckedYear: 2026, month: 13, day: 40)])
        #expect(days.count > 3000)
        for day in days { #expect(day.description == day.paddedDescription, "\(day.paddedDescription)") }
        #expect(CalendarDay(year: 2026, month: 1, day: 5)?.description == "2026-01-05")
    }
}
