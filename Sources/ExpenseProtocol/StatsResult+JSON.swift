import ExpenseCore

extension StatsResult: RPCResult {
    /// About 12 bytes a number: the rows' cells dominate.
    public var encodedSizeHint: Int {
        let cells = statistics.tables.reduce(0) { $0 + ($1.categories.count + 2) * statistics.periods.count }
        return 256 + statistics.periods.count * 96 + cells * 12
    }

    /// Writes `{"byCategory","currency"?,"cursor","from","period","periods":[…],"tables":[…],"to","today"}`
    /// (Protocol.md §5.10).
    public func write(to writer: inout JSONWriter) {
        let query = statistics.query
        writer.beginObject()
        writer.member("byCategory", query.byCategory)
        if let currency = query.currency { writer.member("currency", currency.code) }
        writer.member("cursor", cursor)
        writer.member("from", query.from.description)
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
        self.init(statistics: PeriodStatistics(query: query, periods: periods, tables: tables), cursor: try reader.int64("cursor"))
    }
}
