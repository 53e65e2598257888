/// What `stats` covers: one row per ``StatisticsPeriod`` from the period containing `from` to the one
/// containing `to`, counting only the expenses dated `from` … `to` (inclusive), per currency (or only
/// `currency`), with one column per category when `byCategory`. `today` decides which period is the current one.
public struct StatisticsQuery: Hashable, Sendable {
    public var period: StatisticsPeriod
    public var from: CalendarDay
    public var to: CalendarDay
    public var byCategory: Bool
    public var currency: Currency?
    public var today: CalendarDay
    /// Only the expenses that carry every one of these tags (``ExpenseTags/containsAll(_:_:)``); empty: all. Set
    /// after the range is resolved: it changes which expenses count, not the periods.
    public var tags: [String] = []

    /// Equal when every member is, the tags by their bytes (``ExpenseTags/same(_:_:)``).
    public static func == (lhs: StatisticsQuery, rhs: StatisticsQuery) -> Bool {
        lhs.period == rhs.period && lhs.from == rhs.from && lhs.to == rhs.to && lhs.byCategory == rhs.byCategory
            && lhs.currency == rhs.currency && lhs.today == rhs.today && ExpenseTags.same(lhs.tags, rhs.tags)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(period)
        hasher.combine(from)
        hasher.combine(to)
        hasher.combine(byCategory)
        hasher.combine(currency)
        hasher.combine(today)
        for tag in tags { ExactText.hash(tag, into: &hasher) }
    }

    /// At most this many periods in one query (about 19 years of weeks): the client's table and the daemon's
    /// answer stay small (Protocol.md §5.10).
    public static let maximumPeriods = 1000

    /// How many periods the range holds when neither end is given: the current one and the 11 before it.
    public static let defaultPeriods = 12

    /// A query over an explicit range.
    /// - Throws: ``StatisticsError`` when `from` is after `to` or the range holds more than ``maximumPeriods`` periods.
    public init(period: StatisticsPeriod, from: CalendarDay, to: CalendarDay, byCategory: Bool = false,
                currency: Currency? = nil, today: CalendarDay) throws(StatisticsError) {
        guard from <= to else { throw .emptyRange(from: from, to: to) }
        self.period = period
        self.from = from
        self.to = to
        self.byCategory = byCategory
        self.currency = currency
        self.today = today
        let count = Self.periodCount(period, from: from, to: to)
        guard count <= Self.maximumPeriods else { throw .tooManyPeriods(count) }
    }

    /// The one rule for a range with one or both ends left out (the CLI and the daemon both use it):
    /// - neither: the ``defaultPeriods`` periods ending with the one that contains `today`, whole
    ///   (from its first day to the current period's last day);
    /// - only `from`: up to the last day of the period containing `today` (or of the one containing `from`,
    ///   when that is later);
    /// - only `to`: the ``defaultPeriods`` periods ending with the one that contains `to`, from the first one's
    ///   first day.
    /// - Throws: ``StatisticsError``.
    public static func resolving(period: StatisticsPeriod, from: CalendarDay?, to: CalendarDay?, byCategory: Bool = false,
                                 currency: Currency? = nil, today: CalendarDay) throws(StatisticsError) -> StatisticsQuery {
        let anchor = to ?? today
        let resolvedFrom = from ?? period.start(defaultPeriods - 1, before: period.start(containing: anchor))
        var resolvedTo = to ?? period.end(startingOn: period.start(containing: today))
        if to == nil, let from, resolvedTo < from { resolvedTo = period.end(startingOn: period.start(containing: from)) }
        return try StatisticsQuery(period: period, from: resolvedFrom, to: resolvedTo, byCategory: byCategory,
                                   currency: currency, today: today)
    }

    /// The periods from the one containing `from` to the one containing `to`, each cut to the range.
    public var spans: [PeriodSpan] {
        var spans: [PeriodSpan] = []
        var start: CalendarDay? = period.start(containing: from)
        while let periodStart = start, periodStart <= to {
            let periodEnd = period.end(startingOn: periodStart)
            let first = max(periodStart, from), last = min(periodEnd, to)
            let current = periodStart <= today && today <= periodEnd
            spans.append(PeriodSpan(label: period.label(startingOn: periodStart), start: first, end: last,
                                    partial: first != periodStart || last != periodEnd || (current && today < periodEnd),
                                    current: current))
            start = period.start(after: periodStart)
        }
        return spans
    }

    /// How many periods `from` … `to` touches, counted without building them.
    static func periodCount(_ period: StatisticsPeriod, from: CalendarDay, to: CalendarDay) -> Int {
        let first = period.start(containing: from), last = period.start(containing: to)
        switch period {
        case .week: return (last.dayNumber - first.dayNumber) / 7 + 1
        case .month: return (last.year * 12 + last.month) - (first.year * 12 + first.month) + 1
        case .quarter: return ((last.year * 12 + last.month) - (first.year * 12 + first.month)) / 3 + 1
        case .year: return last.year - first.year + 1
        }
    }
}

/// One row of `stats`: a period, named by ``label``, cut to the query's range (`start` … `end`, inclusive).
public struct PeriodSpan: Hashable, Sendable {
    /// `2026-W05`, `2026-01`, `2026-Q1` or `2026`.
    public var label: String
    /// The first day counted: the period's first day, or the query's `from` when that is later.
    public var start: CalendarDay
    /// The last day counted: the period's last day, or the query's `to` when that is earlier.
    public var end: CalendarDay
    /// Fewer days counted than the period has: it is the current one and not over yet, or the range cuts it.
    public var partial: Bool
    /// The period contains the query's `today`.
    public var current: Bool

    public init(label: String, start: CalendarDay, end: CalendarDay, partial: Bool, current: Bool) {
        self.label = label
        self.start = start
        self.end = end
        self.partial = partial
        self.current = current
    }
}

/// Why a statistics query was refused.
public enum StatisticsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `from` is after `to`.
    case emptyRange(from: CalendarDay, to: CalendarDay)
    /// The range holds more than ``StatisticsQuery/maximumPeriods`` periods (the count is given).
    case tooManyPeriods(Int)
    /// A sum in this currency (a cell, a row, a column or the total) does not fit in `Int64` minor units.
    case amountOverflow(Currency)

    /// The stable snake_case code.
    public var code: String {
        switch self {
        case .emptyRange: "empty_range"
        case .tooManyPeriods: "too_many_periods"
        case .amountOverflow: "amount_overflow"
        }
    }

    public var message: String {
        switch self {
        case .emptyRange(let from, let to): "the range is empty: from \(from) is after to \(to)"
        case .tooManyPeriods(let count):
            "the range holds \(count) periods; at most \(StatisticsQuery.maximumPeriods) are shown at once "
                + "(choose a longer period or a shorter range)"
        case .amountOverflow(let currency):
            "a sum of the \(currency.code) expenses asked for does not fit in a 64-bit integer of minor units"
        }
    }

    public var description: String { "\(code): \(message)" }
}
