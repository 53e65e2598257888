/// One budget period: its first and last day, both inclusive, and its index from the budget's first period (0).
public struct BudgetPeriod: Hashable, Sendable {
    public var index: Int
    public var start: CalendarDay
    /// Inclusive.
    public var end: CalendarDay

    public init(index: Int, start: CalendarDay, end: CalendarDay) {
        self.index = index
        self.start = start
        self.end = end
    }

    public func contains(_ day: CalendarDay) -> Bool { start <= day && day <= end }
}

/// The periods of a budget, anchored at its start: period n starts at start + n × length, computed from the
/// start each time (never from the previous period), with a start on the 29th–31st clamped to a shorter
/// month's last day. So `--period month --start 2026-01-25` gives the 25th to the 24th, and a start on the
/// 31st gives Jan 31 – Feb 27, Feb 28 – Mar 30, Mar 31 – Apr 29, …
public struct BudgetPeriods: Sendable {
    public let length: BudgetPeriodLength
    public let anchor: CalendarDay

    public init(length: BudgetPeriodLength, anchor: CalendarDay) {
        self.length = length
        self.anchor = anchor
    }

    public init(_ budget: Budget) { self.init(length: budget.period, anchor: budget.start) }

    /// The first day of period `index`, or `nil` outside the calendar's range.
    public func start(ofPeriod index: Int) -> CalendarDay? {
        guard index >= 0 else { return nil }
        if let months = length.months {
            let (count, overflow) = index.multipliedReportingOverflow(by: months)
            return overflow ? nil : anchor.adding(months: count, clamp: true)
        }
        let (days, overflow) = index.multipliedReportingOverflow(by: 7)
        return overflow ? nil : anchor.adding(days: days)
    }

    /// Period `index`; `nil` when it starts outside the calendar (its end is 9999-12-31 when the next one would).
    public func period(index: Int) -> BudgetPeriod? {
        guard let first = start(ofPeriod: index) else { return nil }
        let end = start(ofPeriod: index + 1).flatMap { $0.adding(days: -1) } ?? CalendarDay.latest
        return BudgetPeriod(index: index, start: first, end: end)
    }

    /// The period containing `day`; `nil` before the anchor (the budget had not begun).
    public func period(containing day: CalendarDay) -> BudgetPeriod? {
        guard day >= anchor else { return nil }
        // An estimate from whole months or weeks, then corrected by at most a step or two either way.
        var index: Int
        if let months = length.months {
            index = ((day.year - anchor.year) * 12 + (day.month - anchor.month)) / months
        } else {
            index = (day.dayNumber - anchor.dayNumber) / 7
        }
        index = max(0, index)
        while index > 0, let first = start(ofPeriod: index), first > day { index -= 1 }
        while let next = start(ofPeriod: index + 1), next <= day { index += 1 }
        return period(index: index)
    }
}

extension CalendarDay {
    /// 9999-12-31, the last day a record may have.
    public static let latest = CalendarDay(uncheckedYear: 9999, month: 12, day: 31)
}
