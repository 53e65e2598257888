import ExpenseCore

/// `stats` `{"period":"week"|"month"|"quarter"|"year"?,"from":…?,"to":…?,"byCategory":bool?,"currency":…?,"today":…?}`
/// (Protocol.md §5.10): the daemon's ``PeriodStatistics``, computed by the same core code as the client's.
public struct StatsRequest: RPCMethodRequest, Hashable {
    public typealias Response = StatsResult
    public static let method = "stats"

    /// The period and the range as sent; `from`/`to` left out are resolved by the daemon with
    /// ``StatisticsQuery/resolving(period:from:to:byCategory:currency:today:)``.
    public var period: StatisticsPeriod
    public var from: CalendarDay?
    public var to: CalendarDay?
    public var byCategory: Bool
    public var currency: Currency?
    /// The day the client calls today (which period is the current one); `nil`: the daemon's local day.
    public var today: CalendarDay?

    public init(period: StatisticsPeriod = .month, from: CalendarDay? = nil, to: CalendarDay? = nil,
                byCategory: Bool = false, currency: Currency? = nil, today: CalendarDay? = nil) {
        self.period = period
        self.from = from
        self.to = to
        self.byCategory = byCategory
        self.currency = currency
        self.today = today
    }

    /// The request for an already resolved query (what `expense stats --server` sends).
    public init(query: StatisticsQuery) {
        self.init(period: query.period, from: query.from, to: query.to, byCategory: query.byCategory,
                  currency: query.currency, today: query.today)
    }

    /// Reads the params; every member is optional and `params` may be omitted.
    ///
    /// A member of the wrong type or value → −32602 `invalid_params` naming it; the resolved range checked
    /// by ``query(defaultToday:)``.
    /// - Throws: ``RPCError``.
    public init(params: JSONValue?) throws(RPCError) {
        let reader = try ParamsReader(params)
        var period = StatisticsPeriod.month
        if let text = try reader.optionalString("period") {
            guard let parsed = StatisticsPeriod(rawValue: text) else {
                throw .invalidParams("period must be week, month, quarter or year", field: "period")
            }
            period = parsed
        }
        var byCategory = false
        if let value = reader.optional("byCategory") {
            guard let flag = value.boolValue else { throw .invalidParams("byCategory must be true or false", field: "byCategory") }
            byCategory = flag
        }
        var currency: Currency?
        if let code = try reader.optionalString("currency") {
            guard let parsed = Currency(code: code) else {
                throw .invalidParams("currency must be an active ISO 4217 code in upper case", field: "currency")
            }
            currency = parsed
        }
        self.init(period: period, from: try reader.optionalDay("from"), to: try reader.optionalDay("to"), byCategory: byCategory,
                  currency: currency, today: try reader.optionalDay("today"))
        _ = try query(defaultToday: today ?? ExpenseRules.earliestDate)
    }

    /// The query these params ask for, `today` defaulting to `defaultToday`.
    /// - Throws: ``RPCError``: −32602 with reason `empty_range` (field `from`) or `too_many_periods` (field `period`).
    public func query(defaultToday: CalendarDay) throws(RPCError) -> StatisticsQuery {
        do {
            return try StatisticsQuery.resolving(period: period, from: from, to: to, byCategory: byCategory,
                                                 currency: currency, today: today ?? defaultToday)
        } catch {
            switch error {
            case .emptyRange: throw .invalidParams(error.message, field: "from", reason: error.code)
            case .tooManyPeriods: throw .invalidParams(error.message, field: "period", reason: error.code)
            case .amountOverflow: throw .invalidParams(error.message, field: nil, reason: error.code)
            }
        }
    }

    /// −32602 `result_too_large`: the answer would be longer than the line limit.
    public static func resultTooLarge(bytes: Int, limit: Int) -> RPCError {
        .invalidParams("the statistics take \(bytes) bytes, over the line limit of \(limit); "
                       + "ask for fewer periods, a longer period, one currency or no byCategory",
                       field: nil, reason: "result_too_large")
    }

    /// Writes `{"byCategory","currency"?,"from"?,"period","to"?,"today"?}`.
    public func writeParams(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("byCategory", byCategory)
        if let currency { writer.member("currency", currency.code) }
        if let from { writer.member("from", from.description) }
        writer.member("period", period.rawValue)
        if let to { writer.member("to", to.description) }
        if let today { writer.member("today", today.description) }
        writer.endObject()
    }
}

/// The answer to `stats`: the statistics and the head they reflect.
public struct StatsResult: Hashable, Sendable {
    public var statistics: PeriodStatistics
    public var cursor: Int64

    public init(statistics: PeriodStatistics, cursor: Int64) {
        self.statistics = statistics
        self.cursor = cursor
    }
}
