import ExpenseCore

/// `stats` `{"period":"week"|"month"|"quarter"|"year"?,"from":…?,"to":…?,"byCategory":bool?,"currency":…?,"today":…?,
/// "in":…?,"at":…?,"tags":[…]?}` (Protocol.md §5.10): the daemon's ``PeriodStatistics``, computed by the same core code as the
/// client's, converted into one currency with `in`.
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
    /// `in` and `at`: every amount converted into one currency with the ledger's rates, expense by expense
    /// (`currency` then picks the expenses' own currency); `nil`: one table per currency, from the aggregates.
    public var conversion: ViewConversion?
    /// Only the expenses that carry every one of these tags (sorted by their bytes, each once); empty: all.
    public var tags: [String]

    public init(period: StatisticsPeriod = .month, from: CalendarDay? = nil, to: CalendarDay? = nil,
                byCategory: Bool = false, currency: Currency? = nil, today: CalendarDay? = nil,
                conversion: ViewConversion? = nil, tags: [String] = []) {
        self.tags = ExpenseTags.normalized(tags)
        self.period = period
        self.from = from
        self.to = to
        self.byCategory = byCategory
        self.currency = currency
        self.today = today
        self.conversion = conversion
    }

    /// The request for an already resolved query (what `expense stats --server` sends), converted as
    /// `conversion` says.
    public init(query: StatisticsQuery, conversion: ViewConversion? = nil) {
        self.init(period: query.period, from: query.from, to: query.to, byCategory: query.byCategory,
                  currency: query.currency, today: query.today, conversion: conversion, tags: query.tags)
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
                  currency: currency, today: try reader.optionalDay("today"), conversion: try reader.conversion(),
                  tags: try reader.tags())
        _ = try query(defaultToday: today ?? ExpenseRules.earliestDate)
    }

    /// The query these params ask for, `today` defaulting to `defaultToday`.
    /// - Throws: ``RPCError``: −32602 with reason `empty_range` (field `from`) or `too_many_periods` (field `period`).
    public func query(defaultToday: CalendarDay) throws(RPCError) -> StatisticsQuery {
        do {
            var query = try StatisticsQuery.resolving(period: period, from: from, to: to, byCategory: byCategory,
                                                      currency: currency, today: today ?? defaultToday)
            query.tags = tags
            return query
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

    /// Writes `{"at"?,"byCategory","currency"?,"from"?,"in"?,"period","tags"?,"to"?,"today"?}`.
    public func writeParams(to writer: inout JSONWriter) {
        writer.beginObject()
        if let conversion { writer.member("at", conversion.valuation.description) }
        writer.member("byCategory", byCategory)
        if let currency { writer.member("currency", currency.code) }
        if let from { writer.member("from", from.description) }
        if let conversion { writer.member("in", conversion.target.code) }
        writer.member("period", period.rawValue)
        if !tags.isEmpty { writer.member("tags", JSONValue.array(tags.map(JSONValue.string))) }
        if let to { writer.member("to", to.description) }
        if let today { writer.member("today", today.description) }
        writer.endObject()
    }
}

/// The answer to `stats`: the statistics and the head they reflect.
public struct StatsResult: Hashable, Sendable {
    public var statistics: PeriodStatistics
    public var cursor: Int64
    /// The request's conversion, when it asked for one: the one table is then in its currency.
    public var conversion: ViewConversion?
    /// What that conversion left out, by currency then reason (never in the figures).
    public var unconverted: [UnconvertedTotal]

    public init(statistics: PeriodStatistics, cursor: Int64, conversion: ViewConversion? = nil, unconverted: [UnconvertedTotal] = []) {
        self.statistics = statistics
        self.cursor = cursor
        self.conversion = conversion
        self.unconverted = unconverted
    }
}

extension StatsResult: RPCResult {
    /// About 12 bytes a number: the rows' cells dominate.
    public var encodedSizeHint: Int {
        let cells = statistics.tables.reduce(0) { $0 + ($1.categories.count + 2) * statistics.periods.count }
        return 256 + statistics.periods.count * 96 + cells * 12 + unconverted.count * 128
    }

    /// Writes `{"at"?,"byCategory","currency"?,"cursor","from","in"?,"period","periods":[…],"tables":[…],"to","today",
    /// "unconverted"?:[…]}` (Protocol.md §5.10).
    public func write(to writer: inout JSONWriter) {
        let query = statistics.query
        writer.beginObject()
        if let conversion { writer.member("at", conversion.valuation.description) }
        writer.member("byCategory", query.byCategory)
        if let currency = query.currency { writer.member("currency", currency.code) }
        writer.member("cursor", cursor)
        writer.member("from", query.from.description)
        if let conversion { writer.member("in", conversion.target.code) }
        writer.member("period", query.period.rawValue)
        writer.key("periods")
        writer.beginArray()
        for span in statistics.periods {
            writer.beginObject()
            writer.member("current", span.current)
            writer.member("end", span.end.description)
            writer.member("label", span.label)
            writer.member("partial", span.partial)
            writer.member("start", span.start.description)
            writer.endObject()
        }
        writer.endArray()
        writer.key("tables")
        writer.beginArray()
        for table in statistics.tables {
            writer.beginObject()
            writer.member("average", table.average)
            writer.key("categories")
            writer.beginArray()
            for category in table.categories { writer.string(category) }
            writer.endArray()
            Self.write(table.columnAverages, key: "columnAverages", to: &writer)
            Self.write(table.columnTotals, key: "columnTotals", to: &writer)
            writer.member("count", table.count)
            writer.member("currency", table.currency.code)
            writer.key("rows")
            writer.beginArray()
            for row in table.rows {
                writer.beginObject()
                Self.write(row.amounts, key: "amounts", to: &writer)
                writer.member("count", row.count)
                writer.member("total", row.total)
                writer.endObject()
            }
            writer.endArray()
            writer.member("total", table.total)
            writer.endObject()
        }
        writer.endArray()
        writer.member("to", query.to.description)
        writer.member("today", query.today.description)
        if conversion != nil { writer.unconverted(unconverted) }
        writer.endObject()
    }

    private static func write(_ numbers: [Int64], key: String, to writer: inout JSONWriter) {
        writer.key(key)
        writer.beginArray()
        for number in numbers { writer.int64(number) }
        writer.endArray()
    }

    public init(json: JSONValue) throws(ProtocolDecodingError) {
        let reader = try ResultReader(json, path: "result")
        func day(_ reader: ResultReader, _ key: String) throws(ProtocolDecodingError) -> CalendarDay {
            guard let day = CalendarDay(try reader.string(key)) else { throw .invalidMember(path: reader.sub(key), detail: "expected a day") }
            return day
        }
        func currency(_ code: String, _ path: String) throws(ProtocolDecodingError) -> Currency {
            guard let currency = Currency(code: code) else { throw .invalidMember(path: path, detail: "unknown currency") }
            return currency
        }
        func numbers(_ reader: ResultReader, _ key: String) throws(ProtocolDecodingError) -> [Int64] {
            var result: [Int64] = []
            for (index, element) in try reader.array(key).enumerated() {
                guard let number = element.int64Value else { throw .invalidMember(path: reader.sub(key) + "[\(index)]", detail: "expected an integer") }
                result.append(number)
            }
            return result
        }
        guard let period = StatisticsPeriod(rawValue: try reader.string("period")) else {
            throw .invalidMember(path: reader.sub("period"), detail: "unknown period")
        }
        let from = try day(reader, "from"), to = try day(reader, "to"), today = try day(reader, "today")
        let byCategory = try reader.bool("byCategory")
        var chosen: Currency?
        if let code = try reader.optionalString("currency") { chosen = try currency(code, reader.sub("currency")) }
        let query: StatisticsQuery
        do {
            query = try StatisticsQuery(period: period, from: from, to: to, byCategory: byCategory, currency: chosen, today: today)
        } catch {
            throw .invalidMember(path: reader.sub("from"), detail: error.message)
        }
        var periods: [PeriodSpan] = []
        for (index, element) in try reader.array("periods").enumerated() {
            let span = try ResultReader(element, path: "result.periods[\(index)]")
            periods.append(PeriodSpan(label: try span.string("label"), start: try day(span, "start"), end: try day(span, "end"),
                                      partial: try span.bool("partial"), current: try span.bool("current")))
        }
        var tables: [CurrencyStatistics] = []
        for (index, element) in try reader.array("tables").enumerated() {
            let table = try ResultReader(element, path: "result.tables[\(index)]")
            var categories: [String] = []
            for (column, value) in try table.array("categories").enumerated() {
                guard let text = value.stringValue else { throw .invalidMember(path: table.sub("categories") + "[\(column)]", detail: "expected a string") }
                categories.append(text)
            }
            var rows: [CurrencyStatistics.Row] = []
            for (rowIndex, rowValue) in try table.array("rows").enumerated() {
                let row = try ResultReader(rowValue, path: table.sub("rows") + "[\(rowIndex)]")
                rows.append(CurrencyStatistics.Row(amounts: try numbers(row, "amounts"), total: try row.int64("total"),
                                                   count: try row.int64("count")))
            }
            tables.append(CurrencyStatistics(
                currency: try currency(try table.string("currency"), table.sub("currency")), categories: categories, rows: rows,
                columnTotals: try numbers(table, "columnTotals"), columnAverages: try numbers(table, "columnAverages"),
                total: try table.int64("total"), count: try table.int64("count"), average: try table.int64("average")))
        }
        let (conversion, unconverted) = try reader.conversion()
        self.init(statistics: PeriodStatistics(query: query, periods: periods, tables: tables), cursor: try reader.int64("cursor"),
                  conversion: conversion, unconverted: unconverted)
    }
}
