/// Day and month arithmetic on calendar days, for budget periods and recurring rules.
///
/// Every step is computed from an anchor (anchor + n × interval), never from the previous result, so a
/// schedule from the 31st does not drift to the 28th after February.
extension CalendarDay {
    /// Days since 1970-01-01 (negative before), proleptic Gregorian (Howard Hinnant's `days_from_civil`).
    public var daysSinceEpoch: Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let monthIndex = (month + 9) % 12
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The day `days` after 1970-01-01, or `nil` outside 1900-01-01 … 9999-12-31.
    public init?(daysSinceEpoch days: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        self.init(year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month: month, day: day)
    }

    /// `count` days later (earlier when negative), or `nil` outside the valid range.
    public func adding(days count: Int) -> CalendarDay? {
        let (sum, overflow) = daysSinceEpoch.addingReportingOverflow(count)
        return overflow ? nil : CalendarDay(daysSinceEpoch: sum)
    }

    /// The month `count` months later and the day `day` in it: clamped to that month's last day when it is
    /// shorter (Jan 31 + 1 month = Feb 28), or `nil` when `clamp` is false and the month has no such day, or
    /// outside the valid range.
    public func adding(months count: Int, clamp: Bool = true) -> CalendarDay? {
        let (monthsSinceZero, overflow) = (year * 12 + month - 1).addingReportingOverflow(count)
        guard !overflow else { return nil }
        let newYear = monthsSinceZero >= 0 ? monthsSinceZero / 12 : (monthsSinceZero - 11) / 12
        let newMonth = monthsSinceZero - newYear * 12 + 1
        guard (1900...9999).contains(newYear) else { return nil }
        let last = CalendarDay.daysIn(month: newMonth, year: newYear)
        if day > last && !clamp { return nil }
        return CalendarDay(year: newYear, month: newMonth, day: min(day, last))
    }

    /// The number of days in this day's month.
    public var daysInMonth: Int { CalendarDay.daysIn(month: month, year: year) }
}
