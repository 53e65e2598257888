/// The length of one row of `stats`: ISO 8601 weeks (Monday to Sunday), calendar months, calendar quarters
/// (January–March …) or calendar years.
public enum StatisticsPeriod: String, Sendable, Hashable, CaseIterable {
    case week, month, quarter, year

    /// The first day of the period that contains `day`.
    public func start(containing day: CalendarDay) -> CalendarDay {
        switch self {
        case .week:
            // 1900-01-01 is a Monday, so the week's Monday is never before the first valid day.
            day.adding(days: 1 - day.isoWeekday) ?? day
        case .month:
            CalendarDay(uncheckedYear: day.year, month: day.month, day: 1)
        case .quarter:
            CalendarDay(uncheckedYear: day.year, month: (day.month - 1) / 3 * 3 + 1, day: 1)
        case .year:
            CalendarDay(uncheckedYear: day.year, month: 1, day: 1)
        }
    }

    /// The last day of the period that starts on `start` (9999-12-31 at the most: 9999-12-27 is a Monday and
    /// its week's Sunday is 10000-01-02, so that week is cut at the last valid day).
    public func end(startingOn start: CalendarDay) -> CalendarDay {
        switch self {
        case .week:
            return start.adding(days: 6) ?? ExpenseRules.latestDate
        case .month, .quarter, .year:
            let months = self == .month ? 1 : self == .quarter ? 3 : 12
            let lastMonth = start.month + months - 1
            return CalendarDay(uncheckedYear: start.year, month: lastMonth,
                               day: CalendarDay.daysIn(month: lastMonth, year: start.year))
        }
    }

    /// The first day of the next period, or `nil` after 9999-12-31.
    public func start(after start: CalendarDay) -> CalendarDay? {
        end(startingOn: start).adding(days: 1)
    }

    /// The first day of the period `count` periods before the one starting on `start` (clamped at 1900-01-01).
    public func start(_ count: Int, before start: CalendarDay) -> CalendarDay {
        switch self {
        case .week:
            return start.adding(days: -7 * count) ?? ExpenseRules.earliestDate
        case .month, .quarter, .year:
            let months = (self == .month ? 1 : self == .quarter ? 3 : 12) * count
            let index = start.year * 12 + (start.month - 1) - months
            return CalendarDay(year: index / 12, month: index % 12 + 1, day: 1) ?? ExpenseRules.earliestDate
        }
    }

    /// How the period starting on `start` is named: `2026-W05` (the ISO week-numbering year and week),
    /// `2026-01`, `2026-Q1`, `2026`.
    public func label(startingOn start: CalendarDay) -> String {
        switch self {
        case .week:
            let week = start.isoWeek
            return "\(week.year)-W" + (week.week < 10 ? "0" : "") + "\(week.week)"
        case .month: return start.monthKey
        case .quarter: return "\(start.year)-Q\((start.month - 1) / 3 + 1)"
        case .year: return "\(start.year)"
        }
    }
}
