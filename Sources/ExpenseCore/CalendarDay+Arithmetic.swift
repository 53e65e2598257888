/// Day arithmetic on ``CalendarDay`` in whole days, with no `Calendar` and no time zone: the proleptic
/// Gregorian calendar counted as days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
extension CalendarDay {
    /// Days since 1970-01-01 (negative before it).
    public var dayNumber: Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The day `dayNumber` days after 1970-01-01, or `nil` outside 1900-01-01 … 9999-12-31.
    public init?(dayNumber: Int) {
        let shifted = dayNumber + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        self.init(year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month: month, day: day)
    }

    /// The ISO 8601 day of the week: 1 for Monday … 7 for Sunday (1970-01-01 was a Thursday).
    public var isoWeekday: Int {
        let remainder = (dayNumber + 3) % 7
        return (remainder < 0 ? remainder + 7 : remainder) + 1
    }

    /// The day `count` days later (earlier when negative), or `nil` outside 1900-01-01 … 9999-12-31.
    public func adding(days count: Int) -> CalendarDay? {
        let (sum, overflow) = dayNumber.addingReportingOverflow(count)
        return overflow ? nil : CalendarDay(dayNumber: sum)
    }

    /// The month `count` months later and the day `day` in it: clamped to that month's last day when it is
    /// shorter (Jan 31 + 1 month = Feb 28), or `nil` when `clamp` is false and the month has no such day, or
    /// outside the valid range. Budget periods and recurring rules step from an anchor (anchor + n × interval),
    /// never from the previous result, so a schedule from the 31st does not drift to the 28th after February.
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

    /// The last day of this day's month.
    public var monthEnd: CalendarDay { CalendarDay(uncheckedYear: year, month: month, day: daysInMonth) }

    /// The ISO 8601 week-numbering year and week (1…53) of this day: the week belongs to the year that holds
    /// its Thursday, so 2027-01-01 (a Friday) is in week 53 of 2026, and 2024-12-30 (a Monday) in week 1 of 2025.
    public var isoWeek: (year: Int, week: Int) {
        let thursday = dayNumber - isoWeekday + 4
        guard let thursdayDay = CalendarDay(dayNumber: thursday) else {
            // Only the first days of 1900 or the last of 9999 can have a Thursday outside the range.
            return (year, 1)
        }
        let firstOfYear = CalendarDay(uncheckedYear: thursdayDay.year, month: 1, day: 1).dayNumber
        return (thursdayDay.year, (thursday - firstOfYear) / 7 + 1)
    }
}
