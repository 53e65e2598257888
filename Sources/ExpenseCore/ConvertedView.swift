import FoundationEssentials

/// The day a converted view values an amount on (`--at`).
public enum Valuation: Hashable, Sendable, CustomStringConvertible {
    /// Each expense at its own date (`--at then`, the default).
    case then
    /// Each amount at the end of the period it is reported in (`--at end`): a month's last day, or the end of the
    /// whole range when the view has no periods.
    case periodEnd
    /// Everything at one day (`--at YYYY-MM-DD`).
    case on(CalendarDay)

    /// `then`, `end` or a date, as `--at` takes it; `nil` for anything else.
    public init?(_ text: String) {
        switch text {
        case "then": self = .then
        case "end": self = .periodEnd
        default:
            guard let day = CalendarDay(text) else { return nil }
            self = .on(day)
        }
    }

    /// `then`, `end` or the date.
    public var description: String {
        switch self {
        case .then: "then"
        case .periodEnd: "end"
        case .on(let day): day.description
        }
    }
}

/// What a converted view could not convert, per currency: never added to a converted total, listed beside it.
public struct UnconvertedTotal: Hashable, Sendable {
    /// Why an amount stayed as it was.
    public enum Reason: String, Hashable, Sendable {
        /// No rate (direct, inverse or through the ledger's currency) dated on or before its valuation day.
        case noRate = "no_rate"
        /// Converted, its magnitude would exceed the largest amount.
        case overflow
    }

    public let currency: Currency
    public let reason: Reason
    /// The sum of the amounts, in minor units of ``currency``; `nil` when that sum itself overflows.
    public internal(set) var amount: Int64?
    /// How many amounts.
    public internal(set) var count: Int64
    /// The earliest and the latest valuation day among them: a rate dated on or before ``firstDay`` converts all
    /// of those left out for ``Reason/noRate``.
    public internal(set) var firstDay: CalendarDay
    public internal(set) var lastDay: CalendarDay

    /// What a daemon's answer says was left out (``CurrencyConverter/unconverted`` makes them otherwise).
    public init(currency: Currency, reason: Reason, amount: Int64?, count: Int64, firstDay: CalendarDay, lastDay: CalendarDay) {
        self.currency = currency
        self.reason = reason
        self.amount = amount
        self.count = count
        self.firstDay = firstDay
        self.lastDay = lastDay
    }
}

/// A view converted into one currency (`--in`), valued as `valuation` says (`--at`).
public struct ViewConversion: Hashable, Sendable {
    /// The currency every amount is converted into.
    public var target: Currency
    public var valuation: Valuation

    public init(target: Currency, valuation: Valuation = .then) {
        self.target = target
        self.valuation = valuation
    }
}

/// Converts a view's expenses into one currency with a ledger's rates (``RateTable``), one expense at a time,
/// and keeps what it could not convert. Each amount is converted and rounded once (``Conversion``); a converted
/// total is the sum of its converted amounts, so it may differ by a few minor units from converting the
/// per-currency totals.
public struct CurrencyConverter: Sendable {
    public let table: RateTable
    /// The currency everything is converted into (`--in`).
    public let target: Currency
    public let valuation: Valuation
    private var left: [Key: UnconvertedTotal] = [:]

    private struct Key: Hashable, Sendable {
        let currency: Currency
        let reason: UnconvertedTotal.Reason
    }

    public init(table: RateTable, target: Currency, valuation: Valuation) {
        self.table = table
        self.target = target
        self.valuation = valuation
    }

    /// A converter of `conversion` over `table`.
    public init(table: RateTable, _ conversion: ViewConversion) {
        self.init(table: table, target: conversion.target, valuation: conversion.valuation)
    }

    /// Its target and valuation.
    public var conversion: ViewConversion { ViewConversion(target: target, valuation: valuation) }

    /// `expense` with its amount in ``target`` (valued on its date, `periodEnd`, or the fixed day, as
    /// ``valuation`` says; ``ExpenseCore/Expense/converted(amount:currency:)``);
    /// `nil` when it cannot be converted, which ``unconverted`` then counts. Its amount is ``amount(of:periodEnd:)``.
    /// - Parameter periodEnd: the last day of the period the expense is reported in, for ``Valuation/periodEnd``
    ///   (its own date when `nil`).
    public mutating func convert(_ expense: Expense, periodEnd: CalendarDay? = nil) -> Expense? {
        guard let amount = amount(of: expense, periodEnd: periodEnd) else { return nil }
        return expense.converted(amount: amount, currency: target)
    }

    /// `expense`'s whole amount in minor units of ``target`` (a shared expense's before it is divided), the one
    /// rule of every converted view: an expense already in ``target`` is its own amount; one with an amount
    /// charged (``ExpenseCore/Expense/charged``, `--paid`) converted into the table's
    /// ``RateTable/ledgerCurrency`` is that amount exactly, whatever the rates and the valuation day (no rate is
    /// needed, so it is never left unconverted); anything else goes through the rates
    /// (``convert(_:_:dated:periodEnd:)``). Into another currency the amount charged plays no part.
    /// - Returns: the amount, or `nil` when it cannot be converted, which ``unconverted`` then counts.
    public mutating func amount(of expense: Expense, periodEnd: CalendarDay? = nil) -> Int64? {
        if let charged = expense.charged, target == table.ledgerCurrency, expense.currency != target { return charged }
        return convert(expense.amount, expense.currency, dated: expense.date, periodEnd: periodEnd)
    }

    /// `amount` minor units of `currency`, dated `date`, in minor units of ``target``, valued as
    /// ``convert(_:periodEnd:)`` values an expense (a shared expense's amount before it is divided, a transfer);
    /// `nil` when it cannot be converted, which ``unconverted`` then counts.
    public mutating func convert(_ amount: Int64, _ currency: Currency, dated date: CalendarDay, periodEnd: CalendarDay? = nil) -> Int64? {
        let day = valuationDay(dated: date, periodEnd: periodEnd)
        switch table.convert(amount, currency, on: day, into: target) {
        case .converted(let converted, _):
            return converted
        case .noRate:
            leave(amount, currency, on: day, because: .noRate)
        case .overflow:
            leave(amount, currency, on: day, because: .overflow)
        }
        return nil
    }

    /// The day an amount dated `date` is valued on: its date, `periodEnd` (its date when `nil`), or the fixed day.
    public func valuationDay(dated date: CalendarDay, periodEnd: CalendarDay?) -> CalendarDay {
        switch valuation {
        case .then: date
        case .periodEnd: periodEnd ?? date
        case .on(let fixed): fixed
        }
    }

    /// What was left unconverted, by currency code then reason.
    public var unconverted: [UnconvertedTotal] {
        left.values.sorted { ($0.currency.code, $0.reason.rawValue) < ($1.currency.code, $1.reason.rawValue) }
    }

    /// How many amounts were left unconverted.
    public var unconvertedCount: Int64 { left.values.reduce(0) { $0 + $1.count } }

    private mutating func leave(_ amount: Int64, _ currency: Currency, on day: CalendarDay, because reason: UnconvertedTotal.Reason) {
        let key = Key(currency: currency, reason: reason)
        guard var total = left[key] else {
            left[key] = UnconvertedTotal(currency: currency, reason: reason, amount: amount, count: 1,
                                         firstDay: day, lastDay: day)
            return
        }
        total.amount = total.amount.flatMap { sum in
            let (added, overflow) = sum.addingReportingOverflow(amount)
            return overflow ? nil : added
        }
        total.count += 1
        total.firstDay = min(total.firstDay, day)
        total.lastDay = max(total.lastDay, day)
        left[key] = total
    }
}
