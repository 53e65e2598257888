import ExpenseCore
import SQLite

extension SQLiteLedgerStore {
    /// The summary from the aggregate tables, never from the records: whole months of the range come from
    /// `monthly_totals`, the partial months at its edges from `daily_totals`. The sums go through the core's
    /// ``ExpenseCore/Aggregator`` (overflow-checked), the same code that totals a client's local expenses.
    package func summary(_ query: SummaryQuery) throws -> Summary {
        var aggregator = Aggregator(query: query)
        let category: SQLiteValue = query.category.map { .text($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? .null
        let firstFull = query.from.map { $0.day == 1 ? Self.month($0) : Self.month(after: Self.month($0)) }
        let lastFull = query.to.map { Self.isLastDayOfMonth($0) ? Self.month($0) : Self.month(before: Self.month($0)) }
        let lowestMonth = firstFull ?? 0
        let highestMonth = lastFull ?? 99_999_999
        var dayRanges: [(Int, Int)] = []
        if lowestMonth > highestMonth {
            dayRanges.append((query.from?.ordinal ?? 0, query.to?.ordinal ?? 99_999_999))
        } else {
            try connection.cached("""
                SELECT month, category, currency, amount, count FROM monthly_totals
                WHERE month BETWEEN ?1 AND ?2 AND (?3 IS NULL OR category = ?3)
                """).forEach([.integer(Int64(lowestMonth)), .integer(Int64(highestMonth)), category]) { row in
                try add(row, date: CalendarDay(ordinal: row.int(0) * 100 + 1), to: &aggregator)
            }
            if let from = query.from, from.day != 1 { dayRanges.append((from.ordinal, lowestMonth * 100)) }
            if let to = query.to, !Self.isLastDayOfMonth(to) { dayRanges.append((highestMonth * 100 + 99, to.ordinal)) }
        }
        for (low, high) in dayRanges {
            try connection.cached("""
                SELECT day, category, currency, amount, count FROM daily_totals
                WHERE day BETWEEN ?1 AND ?2 AND (?3 IS NULL OR category = ?3)
                """).forEach([.integer(Int64(low)), .integer(Int64(high)), category]) { row in
                try add(row, date: CalendarDay(ordinal: row.int(0)), to: &aggregator)
            }
        }
        return aggregator.summary
    }

    private func add(_ row: SQLiteRow, date: CalendarDay?, to aggregator: inout Aggregator) throws {
        guard let date, let currency = Currency(code: row.text(2)) else {
            throw LedgerError.storageFailed("an aggregate row has an invalid date or currency")
        }
        try aggregator.add(amount: row.int64(3), count: row.int64(4), currency: currency, category: row.text(1), date: date)
    }

    /// `YYYYMM`.
    static func month(_ day: CalendarDay) -> Int { day.year * 100 + day.month }

    static func month(after month: Int) -> Int { month % 100 == 12 ? (month / 100 + 1) * 100 + 1 : month + 1 }

    static func month(before month: Int) -> Int { month % 100 == 1 ? (month / 100 - 1) * 100 + 12 : month - 1 }

    static func isLastDayOfMonth(_ day: CalendarDay) -> Bool {
        CalendarDay(year: day.year, month: day.month, day: day.day + 1) == nil
    }
}
