import FoundationEssentials

/// The unit of a recurring rule's interval.
public enum RecurrenceUnit: String, Sendable, Hashable, CaseIterable {
    case day, week, month, year
}

/// What a monthly or yearly rule does in a month without its day (the 29th–31st; Feb 29 in other years).
public enum MonthEndPolicy: String, Sendable, Hashable, CaseIterable {
    /// The month's last day (the default).
    case clamp
    /// No occurrence that month.
    case skip
}

/// When a rule stops.
public enum RecurrenceEnd: Hashable, Sendable {
    /// Never (until the rule is removed).
    case never
    /// The last nominal date allowed, inclusive.
    case until(CalendarDay)
    /// Only occurrences 0 ..< count (an occurrence skipped by ``MonthEndPolicy/skip`` still counts).
    case count(Int)
}

/// A recurring expense: occurrence n is due on start + n × interval, computed from the start, never from the
/// previous occurrence (a monthly rule from Jan 31 gives Feb 28 with ``MonthEndPolicy/clamp``, no February
/// occurrence with ``MonthEndPolicy/skip``, then Mar 31).
public struct RecurringRule: Hashable, Sendable {
    public var id: UUID
    public var amount: Int64
    public var currency: Currency
    public var category: String
    public var note: String
    /// The interval is `every` units (1 … 1000).
    public var every: Int
    public var unit: RecurrenceUnit
    public var start: CalendarDay
    public var end: RecurrenceEnd
    public var monthEnd: MonthEndPolicy
    /// Dates whose occurrence will never exist (`expense recurring skip`).
    public var skips: Set<CalendarDay>
    /// Rules that look the same as this one but are meant to be charged too (`expense recurring keep-both`):
    /// never its possible twins (``RecurringTwins``).
    public var distinctFrom: Set<UUID>
    /// When the rule was entered, in seconds since 1970 (`nil` for a rule entered before the field existed):
    /// of rules that look the same, the one entered first goes on while the later ones are held.
    public var created: Int64?

    public init(id: UUID, amount: Int64, currency: Currency, category: String, note: String, every: Int,
                unit: RecurrenceUnit, start: CalendarDay, end: RecurrenceEnd, monthEnd: MonthEndPolicy,
                skips: Set<CalendarDay>, distinctFrom: Set<UUID> = [], created: Int64? = nil) {
        self.id = id
        self.amount = amount
        self.currency = currency
        self.category = category
        self.note = note
        self.every = every
        self.unit = unit
        self.start = start
        self.end = end
        self.monthEnd = monthEnd
        self.skips = skips
        self.distinctFrom = distinctFrom
        self.created = created
    }

    /// The largest `every` accepted.
    public static let maximumInterval = 1000
    /// The most rules one rule can be kept apart from (``distinctFrom``).
    public static let maximumDistinct = 100

    /// The date of occurrence `index`, or `nil` when that month has no such day under ``MonthEndPolicy/skip``,
    /// or it is outside the calendar.
    public func date(ofOccurrence index: Int) -> CalendarDay? {
        date(ofOccurrence: index, clamp: monthEnd == .clamp)
    }

    private func date(ofOccurrence index: Int, clamp: Bool) -> CalendarDay? {
        let (steps, overflow) = index.multipliedReportingOverflow(by: every)
        guard !overflow else { return nil }
        switch unit {
        case .day: return start.adding(days: steps)
        case .week:
            let (days, overflow) = steps.multipliedReportingOverflow(by: 7)
            return overflow ? nil : start.adding(days: days)
        case .month: return start.adding(months: steps, clamp: clamp)
        case .year:
            let (months, overflow) = steps.multipliedReportingOverflow(by: 12)
            return overflow ? nil : start.adding(months: months, clamp: clamp)
        }
    }

    /// The occurrence dates from `from` (inclusive; the start when `nil`) through `through` (inclusive), in
    /// order, with the skips and the rule's end applied; at most `limit` of them.
    public func occurrences(from: CalendarDay? = nil, through: CalendarDay, limit: Int = .max) -> [CalendarDay] {
        var result: [CalendarDay] = []
        var index = 0
        while result.count < limit {
            if case .count(let count) = end, index >= count { break }
            // The clamped date exists for every index inside the calendar and increases with it, so it ends the walk.
            guard let clamped = date(ofOccurrence: index, clamp: true), clamped <= through else { break }
            if case .until(let last) = end, clamped > last { break }
            if let date = date(ofOccurrence: index), from.map({ date >= $0 }) ?? true, !skips.contains(date) {
                result.append(date)
            }
            index += 1
        }
        return result
    }

    /// The namespace of occurrence ids (a random UUID chosen once for this program).
    public static let occurrenceNamespace = UUID(uuid: (0x9e, 0x41, 0x0d, 0x6a, 0x27, 0xc8, 0x4b, 0x13,
                                                        0x8f, 0x52, 0x71, 0xe0, 0x3a, 0xb6, 0x1c, 0x95))

    /// The id of the expense an occurrence becomes: a name-based UUID of the ledger's id, the rule's id and the
    /// occurrence's date, so every machine materialising it makes the same expense.
    public static func occurrenceId(ledgerId: UUID, ruleId: UUID, date: CalendarDay) -> UUID {
        NameBasedUUID.make(namespace: occurrenceNamespace,
                           name: NameBasedUUID.bytes(ledgerId) + NameBasedUUID.bytes(ruleId) + Array(date.description.utf8))
    }

    /// The expense occurrence `date` becomes.
    public func expense(on date: CalendarDay, ledgerId: UUID) -> Expense {
        Expense(id: Self.occurrenceId(ledgerId: ledgerId, ruleId: id, date: date), amount: amount, currency: currency,
                category: category, date: date, note: note)
    }
}
