import ExpenseCore

extension SQLiteLedgerStore {
    /// The summary from the live totals in memory (``LiveDayTotals``), never from the records: whole months of
    /// the range from the month cells, the partial months at its edges from the day cells. The sums go through
    /// the core's ``ExpenseCore/Aggregator`` (overflow-checked), the same code that totals a client's local
    /// expenses.
    package func summary(_ query: SummaryQuery) throws -> Summary {
        try dayTotals.summary(query)
    }

    // Months as `YYYYMM`, for which whole months a range covers (``LiveDayTotals``, ``PostgresLedgerStore``).

    /// `YYYYMM`.
    static func month(_ day: CalendarDay) -> Int { day.year * 100 + day.month }

    static func month(after month: Int) -> Int { month % 100 == 12 ? (month / 100 + 1) * 100 + 1 : month + 1 }

    static func month(before month: Int) -> Int { month % 100 == 1 ? (month / 100 - 1) * 100 + 12 : month - 1 }

    static func isLastDayOfMonth(_ day: CalendarDay) -> Bool {
        CalendarDay(year: day.year, month: day.month, day: day.day + 1) == nil
    }
}
