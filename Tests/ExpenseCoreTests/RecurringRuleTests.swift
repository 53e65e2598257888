import ExpenseCore
import Foundation
import Testing

private func day(_ text: String) throws -> CalendarDay { try #require(CalendarDay(text)) }

private func rule(every: Int = 1, _ unit: RecurrenceUnit, start: String, end: RecurrenceEnd = .never,
                  monthEnd: MonthEndPolicy = .clamp, skips: [String] = []) throws -> RecurringRule {
    RecurringRule(id: try #require(UUID(uuidString: "0d9c8f2e-4c1a-4b7e-9a55-3e1f0a6b7c21")), amount: 1200,
                  currency: try #require(Currency(code: "EUR")), category: "rent", note: "", every: every, unit: unit,
                  start: try day(start), end: end, monthEnd: monthEnd, skips: Set(try skips.map(day)))
}

@Suite("Recurring rules")
struct RecurringRuleTests {
    @Test("monthly from Jan 31: Feb 28 with clamp, no February with skip, then Mar 31 (no drift)")
    func januaryThirtyFirst() throws {
        let clamp = try rule(.month, start: "2026-01-31").occurrences(through: try day("2026-05-31"))
        #expect(clamp.map(\.description) == ["2026-01-31", "2026-02-28", "2026-03-31", "2026-04-30", "2026-05-31"])
        let skip = try rule(.month, start: "2026-01-31", monthEnd: .skip).occurrences(through: try day("2026-05-31"))
        #expect(skip.map(\.description) == ["2026-01-31", "2026-03-31", "2026-05-31"])
    }

    @Test("yearly from Feb 29: Feb 28 in other years with clamp, leap years only with skip")
    func februaryTwentyNinth() throws {
        let clamp = try rule(.year, start: "2024-02-29").occurrences(through: try day("2028-12-31"))
        #expect(clamp.map(\.description) == ["2024-02-29", "2025-02-28", "2026-02-28", "2027-02-28", "2028-02-29"])
        let skip = try rule(.year, start: "2024-02-29", monthEnd: .skip).occurrences(through: try day("2028-12-31"))
        #expect(skip.map(\.description) == ["2024-02-29", "2028-02-29"])
    }

    @Test("every N units, until, count, skips, a window and a limit")
    func schedule() throws {
        let fortnightly = try rule(every: 2, .week, start: "2026-01-01", end: .until(try day("2026-02-12")))
        #expect(fortnightly.occurrences(through: try day("2026-12-31")).map(\.description)
            == ["2026-01-01", "2026-01-15", "2026-01-29", "2026-02-12"])
        let counted = try rule(every: 3, .day, start: "2026-01-30", end: .count(3), skips: ["2026-02-02"])
        #expect(counted.occurrences(through: try day("2026-12-31")).map(\.description) == ["2026-01-30", "2026-02-05"])
        let monthly = try rule(.month, start: "2026-01-15")
        #expect(monthly.occurrences(from: try day("2026-03-01"), through: try day("2026-12-31"), limit: 2).map(\.description)
            == ["2026-03-15", "2026-04-15"])
        #expect(monthly.occurrences(through: try day("2026-01-14")).isEmpty)
    }

    @Test("an occurrence's id depends on the ledger, the rule and the date only")
    func occurrenceIds() throws {
        let ledger = UUID(), other = UUID()
        let rent = try rule(.month, start: "2026-01-31")
        let a = rent.expense(on: try day("2026-02-28"), ledgerId: ledger)
        #expect(a.id == rent.expense(on: try day("2026-02-28"), ledgerId: ledger).id)
        #expect(a.id != rent.expense(on: try day("2026-03-31"), ledgerId: ledger).id)
        #expect(a.id != rent.expense(on: try day("2026-02-28"), ledgerId: other).id)
        #expect(a.date.description == "2026-02-28" && a.amount == 1200 && a.category == "rent")
    }
}
