import ExpenseCore
import Foundation
import Testing
import TestSupport

@Suite("CalendarDay")
struct CalendarDayTests {
    @Test("real days in range are accepted", arguments: [
        "2024-02-29", "2000-02-29", "1900-01-01", "9999-12-31", "2026-01-05", "2026-04-30", "2026-12-31",
        "1904-02-29", "2400-02-29", "1900-02-28",
    ])
    func accepted(text: String) throws {
        let day = try #require(CalendarDay(text))
        #expect(day.description == text)
        #expect(try ExpenseValidator.validateDate(text) == day)
    }

    @Test("anything else is refused with invalid_date", arguments: [
        "2026-02-29", "1900-02-29", "2100-02-29", "1899-12-31", "0000-01-01", "10000-01-01",
        "2026-1-5", "2026/01/05", "20261130", "2026-13-01", "2026-00-10", "2026-04-31", "2026-01-00", "2026-01-32",
        " 2026-01-01", "2026-01-01 ", "2026-01-01T00:00:00Z", "2026-01-01 10:00", "2026-01-01Z", "", "2026-01",
        "+026-01-01", "-026-01-01", "2026-+1-01", "２０２６-01-01", "٢٠٢٦-01-01", "2026–01–01", "yyyy-mm-dd",
        "2026-01-1\u{0}",
    ])
    func refused(text: String) {
        #expect(CalendarDay(text) == nil)
        expectValidationError("invalid_date", field: .date) { try ExpenseValidator.validateDate(text) }
    }

    @Test("the component initialiser checks the same rules", arguments: [
        (2024, 2, 29, true), (2026, 2, 29, false), (1900, 2, 29, false), (2000, 2, 29, true),
        (1900, 1, 1, true), (9999, 12, 31, true), (1899, 12, 31, false), (10_000, 1, 1, false),
        (2026, 0, 1, false), (2026, 13, 1, false), (2026, 4, 31, false), (2026, 1, 0, false), (2026, 1, -1, false),
        (Int.min, 1, 1, false), (Int.max, Int.max, Int.max, false),
    ])
    func components(year: Int, month: Int, day: Int, valid: Bool) {
        #expect((CalendarDay(year: year, month: month, day: day) != nil) == valid)
    }

    @Test("ordering follows the calendar")
    func ordering() throws {
        let days = try ["1900-01-01", "1999-12-31", "2000-01-01", "2000-02-01", "2000-02-29", "2000-03-01",
                        "2026-01-05", "9999-12-31"].map { try #require(CalendarDay($0)) }
        #expect(days == days.shuffled().sorted())
        for (earlier, later) in zip(days, days.dropFirst()) {
            #expect(earlier < later)
            #expect(!(later < earlier))
        }
        #expect(ExpenseRules.earliestDate.description == "1900-01-01")
        #expect(ExpenseRules.latestDate.description == "9999-12-31")
    }

    @Test("monthKey is YYYY-MM", arguments: [
        ("2026-01-05", "2026-01"), ("1900-12-31", "1900-12"), ("9999-12-31", "9999-12"), ("2024-02-29", "2024-02"),
    ])
    func monthKey(text: String, key: String) throws {
        #expect(try #require(CalendarDay(text)).monthKey == key)
    }

    @Test("ordinal round trip")
    func ordinal() throws {
        let day = try #require(CalendarDay("2024-02-29"))
        #expect(day.ordinal == 2024_02_29)
        #expect(CalendarDay(ordinal: day.ordinal) == day)
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<500 {
            let year = Int.random(in: 1900...9999, using: &generator)
            let month = Int.random(in: 1...12, using: &generator)
            let day = Int.random(in: 1...28, using: &generator)
            let value = try #require(CalendarDay(year: year, month: month, day: day))
            #expect(CalendarDay(ordinal: value.ordinal) == value)
            #expect(CalendarDay(value.description) == value)
        }
        #expect(CalendarDay(ordinal: 2026_02_29) == nil)
        #expect(CalendarDay(ordinal: 0) == nil)
        #expect(CalendarDay(ordinal: -2026_01_01) == nil)
    }

    @Test("today uses the given time zone, not UTC")
    func today() throws {
        // 2026-01-01T02:00:00Z is still 2025-12-31 in New York and already 2026-01-01 in Tokyo.
        let instant = Date(timeIntervalSince1970: 1_767_232_800)
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        #expect(CalendarDay.today(now: instant, timeZone: newYork).description == "2025-12-31")
        #expect(CalendarDay.today(now: instant, timeZone: tokyo).description == "2026-01-01")
    }
}
