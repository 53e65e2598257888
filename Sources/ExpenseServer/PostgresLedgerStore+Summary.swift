import ExpenseCore
import PostgreSQL

extension PostgresLedgerStore {
    /// The summary from the aggregate tables, never from the records, split into whole months and the partial
    /// months at the edges exactly as ``SQLiteLedgerStore/summary(_:)`` does; sums through the core's
    /// overflow-checked ``ExpenseCore/Aggregator``.
    package func summary(_ query: SummaryQuery) throws -> Summary {
        var aggregator = Aggregator(query: query)
        let category: PostgresValue = query.category.map { .text($0.trimmingWhitespace) } ?? .null
        let firstFull = query.from.map { $0.day == 1 ? SQLiteLedgerStore.month($0) : SQLiteLedgerStore.month(after: SQLiteLedgerStore.month($0)) }
        let lastFull = query.to.map {
            SQLiteLedgerStore.isLastDayOfMonth($0) ? SQLiteLedgerStore.month($0) : SQLiteLedgerStore.month(before: SQLiteLedgerStore.month($0))
        }
        let lowestMonth = firstFull ?? 0
        let highestMonth = lastFull ?? 99_999_999
        var dayRanges: [(Int, Int)] = []
        if lowestMonth > highestMonth {
            dayRanges.append((query.from?.ordinal ?? 0, query.to?.ordinal ?? 99_999_999))
        } else {
            let rows = try Self.storage {
                try connection.query("""
                    SELECT month, category, currency, amount, count FROM monthly_totals
                    WHERE ledger = $1 AND month BETWEEN $2 AND $3 AND ($4::text IS NULL OR category = $4)
                    """, [.integer(number), .integer(Int64(lowestMonth)), .integer(Int64(highestMonth)), category]).all
            }
            for row in rows { try add(row, date: CalendarDay(ordinal: Int(row.int64(0)) * 100 + 1), to: &aggregator) }
            if let from = query.from, from.day != 1 { dayRanges.append((from.ordinal, lowestMonth * 100)) }
            if let to = query.to, !SQLiteLedgerStore.isLastDayOfMonth(to) { dayRanges.append((highestMonth * 100 + 99, to.ordinal)) }
        }
        for (low, high) in dayRanges {
            let rows = try Self.storage {
                try connection.query("""
                    SELECT day, category, currency, amount, count FROM daily_totals
                    WHERE ledger = $1 AND day BETWEEN $2 AND $3 AND ($4::text IS NULL OR category = $4)
                    """, [.integer(number), .integer(Int64(low)), .integer(Int64(high)), category]).all
            }
            for row in rows { try add(row, date: CalendarDay(ordinal: Int(row.int64(0))), to: &aggregator) }
        }
        return aggregator.summary
    }

    /// `stats`' per-day totals from `daily_totals` (each part in its own category, as the writes keep them), in
    /// one query, never from the records. A cell every expense of which was deleted is left out.
    package func forEachDayTotal(from: CalendarDay, to: CalendarDay, _ body: (DayTotal) throws -> Void) throws {
        let rows = try Self.storage {
            try connection.query("""
                SELECT day, category, currency, amount, count FROM daily_totals
                WHERE ledger = $1 AND day BETWEEN $2 AND $3 AND (amount <> 0 OR count <> 0)
                """, [.integer(number), .integer(Int64(from.ordinal)), .integer(Int64(to.ordinal))]).all
        }
        for row in rows {
            guard let day = CalendarDay(ordinal: Int(row.int64(0))), let currency = Currency(code: row.text(2)) else {
                throw LedgerError.storageFailed("an aggregate row has an invalid date or currency")
            }
            try body(DayTotal(day: day, category: row.text(1), currency: currency, amount: row.int64(3), count: row.int64(4)))
        }
    }

    private func add(_ row: PostgresRow, date: CalendarDay?, to aggregator: inout Aggregator) throws {
        guard let date, let currency = Currency(code: row.text(2)) else {
            throw LedgerError.storageFailed("an aggregate row has an invalid date or currency")
        }
        try aggregator.add(amount: row.int64(3), count: row.int64(4), currency: currency, category: row.text(1), date: date)
    }
}
