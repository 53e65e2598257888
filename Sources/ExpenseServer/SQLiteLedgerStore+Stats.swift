import ExpenseCore
import SQLite

extension SQLiteLedgerStore {
    /// The per-day totals from `daily_totals` (its primary key starts with the day, so this is a range scan):
    /// O(days × categories × currencies) in the range, never O(records).
    package func forEachDayTotal(from: CalendarDay, to: CalendarDay, _ body: (DayTotal) throws -> Void) throws {
        try connection.cached("""
            SELECT day, category, currency, amount, count FROM daily_totals WHERE day BETWEEN ?1 AND ?2
            """).forEach([.integer(Int64(from.ordinal)), .integer(Int64(to.ordinal))]) { row in
            guard let day = CalendarDay(ordinal: row.int(0)), let currency = Currency(code: row.text(2)) else {
                throw LedgerError.storageFailed("an aggregate row has an invalid date or currency")
            }
            try body(DayTotal(day: day, category: row.text(1), currency: currency, amount: row.int64(3), count: row.int64(4)))
        }
    }
}
