import ExpenseCore

extension SQLiteLedgerStore {
    /// The per-day totals from memory (``LiveDayTotals``), the months of the range only:
    /// O(days × categories × currencies) in the range, never O(records).
    package func forEachDayTotal(from: CalendarDay, to: CalendarDay, _ body: (DayTotal) throws -> Void) throws {
        try dayTotals.forEachDayTotal(from: from, to: to, body)
    }
}
