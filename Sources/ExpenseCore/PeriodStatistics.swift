/// The numbers of `stats`, client and daemon alike: per currency (never summed across currencies) one row per
/// period of the query, with the amount per category (when `byCategory`), the row's total and count, and at
/// the bottom the total and the average per period of each column and of the whole.
///
/// Built by ``PeriodStatisticsBuilder`` from pre-summed buckets (the client's per-day buckets, the daemon's
/// per-day totals) or from expenses: every addition overflow-checked by ``Aggregator/checkedSum(_:_:)``.
public struct PeriodStatistics: Hashable, Sendable {
    public var query: StatisticsQuery
    /// The rows, oldest first; every table has one row per span, in this order.
    public var periods: [PeriodSpan]
    /// One table per currency with expenses in the range, sorted by currency code.
    public var tables: [CurrencyStatistics]

    public init(query: StatisticsQuery, periods: [PeriodSpan], tables: [CurrencyStatistics]) {
        self.query = query
        self.periods = periods
        self.tables = tables
    }
}

/// One currency's table of ``PeriodStatistics``. Amounts are minor units of ``currency``.
public struct CurrencyStatistics: Hashable, Sendable {
    public var currency: Currency
    /// The columns, sorted by their UTF-8 bytes; empty unless the query is `byCategory`.
    public var categories: [String]
    /// One per period (``PeriodStatistics/periods``), in the same order.
    public var rows: [Row]
    /// Per category, the sum of its column.
    public var columnTotals: [Int64]
    /// Per category, ``columnTotals`` divided by the number of periods (rounded to the nearest minor unit,
    /// halves away from zero). Empty periods count.
    public var columnAverages: [Int64]
    /// The sum of every row.
    public var total: Int64
    /// How many expenses in all.
    public var count: Int64
    /// ``total`` divided by the number of periods, rounded like ``columnAverages``; empty periods count.
    public var average: Int64

    /// One period's line.
    public struct Row: Hashable, Sendable {
        /// Per category (``CurrencyStatistics/categories``), its sum in the period; empty unless `byCategory`.
        public var amounts: [Int64]
        public var total: Int64
        public var count: Int64

        public init(amounts: [Int64], total: Int64, count: Int64) {
            self.amounts = amounts
            self.total = total
            self.count = count
        }
    }

    public init(currency: Currency, categories: [String], rows: [Row], columnTotals: [Int64], columnAverages: [Int64],
                total: Int64, count: Int64, average: Int64) {
        self.currency = currency
        self.categories = categories
        self.rows = rows
        self.columnTotals = columnTotals
        self.columnAverages = columnAverages
        self.total = total
        self.count = count
        self.average = average
    }

    /// Equal when every member is, the categories by their bytes (``ExactText``), as columns are formed.
    public static func == (lhs: CurrencyStatistics, rhs: CurrencyStatistics) -> Bool {
        lhs.currency == rhs.currency && lhs.categories.count == rhs.categories.count
            && zip(lhs.categories, rhs.categories).allSatisfy { ExactText.same($0, $1) }
            && lhs.rows == rhs.rows && lhs.columnTotals == rhs.columnTotals && lhs.columnAverages == rhs.columnAverages
            && lhs.total == rhs.total && lhs.count == rhs.count && lhs.average == rhs.average
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(currency)
        for category in categories { ExactText.hash(category, into: &hasher) }
        hasher.combine(rows)
        hasher.combine(total)
    }

    /// `total / periods` rounded to the nearest integer, halves away from zero, without overflow.
    public static func average(_ total: Int64, over periods: Int) -> Int64 {
        guard periods > 0 else { return 0 }
        let divisor = Int64(periods)
        let (quotient, remainder) = total.quotientAndRemainder(dividingBy: divisor)
        guard remainder.magnitude * 2 >= divisor.magnitude else { return quotient }
        return total < 0 ? quotient - 1 : quotient + 1
    }
}

/// Collects amounts into the cells of a ``PeriodStatistics``: add buckets in any order, then ``build()``.
public struct PeriodStatisticsBuilder: Sendable {
    public let query: StatisticsQuery
    private let spans: [PeriodSpan]
    private let startNumbers: [Int]
    /// The sums by period (``TotalsKey/span``: the index of a span), category (empty unless the query is
    /// `byCategory`) and currency.
    private var cells: [TotalsKey: Sum] = [:]

    private struct Sum: Sendable {
        var amount: Int64 = 0
        var count: Int64 = 0
    }

    public init(query: StatisticsQuery) {
        self.query = query
        spans = query.spans
        startNumbers = spans.map(\.start.dayNumber)
    }

    /// Adds `count` expenses of one day, category and currency totalling `amount`, when the query covers them
    /// (a day in `from` … `to`, the query's currency if it names one).
    /// - Throws: ``StatisticsError/amountOverflow(_:)``.
    public mutating func add(amount: Int64, count: Int64, currency: Currency, category: String, date: CalendarDay) throws(StatisticsError) {
        guard date >= query.from, date <= query.to, query.currency.map({ $0 == currency }) ?? true else { return }
        let number = date.dayNumber
        // The last span starting on or before the day (spans are contiguous and cover from … to).
        var low = 0, high = startNumbers.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if startNumbers[middle] <= number { low = middle } else { high = middle - 1 }
        }
        let cell = TotalsKey(span: low, category: query.byCategory ? category : "", currency: currency)
        var sum = cells[cell] ?? Sum()
        sum.amount = try Self.checked(sum.amount, amount, currency)
        sum.count = try Self.checked(sum.count, count, currency)
        cells[cell] = sum
    }

    /// Adds one expense (see ``add(amount:count:currency:category:date:)``): each part in its own category, the
    /// remainder in the expense's (``Expense/forEachCategoryShare(_:)``).
    public mutating func add(_ expense: Expense) throws(StatisticsError) {
        try expense.forEachCategoryShare { (category, amount, count) throws(StatisticsError) in
            try add(amount: amount, count: count, currency: expense.currency, category: category, date: expense.date)
        }
    }

    /// The tables: rows, row totals, column totals and averages, every sum overflow-checked.
    /// - Throws: ``StatisticsError/amountOverflow(_:)``.
    public func build() throws(StatisticsError) -> PeriodStatistics {
        var byCurrency: [Currency: [TotalsKey: Sum]] = [:]
        for (cell, sum) in cells { byCurrency[cell.currency, default: [:]][cell] = sum }
        var tables: [CurrencyStatistics] = []
        for currency in byCurrency.keys.sorted() {
            let currencyCells = byCurrency[currency] ?? [:]
            var categories: [String] = []
            if query.byCategory {
                var seen = Set<TotalsKey>()
                for cell in currencyCells.keys
                where seen.insert(TotalsKey(span: 0, category: cell.category, currency: currency)).inserted {
                    categories.append(cell.category)
                }
                categories.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            }
            let columns = query.byCategory ? categories : [""]
            var rows: [CurrencyStatistics.Row] = []
            var columnTotals = [Int64](repeating: 0, count: columns.count)
            var total: Int64 = 0, count: Int64 = 0
            for period in spans.indices {
                var amounts: [Int64] = []
                var rowTotal: Int64 = 0, rowCount: Int64 = 0
                for (column, category) in columns.enumerated() {
                    let sum = currencyCells[TotalsKey(span: period, category: category, currency: currency)] ?? Sum()
                    amounts.append(sum.amount)
                    rowTotal = try Self.checked(rowTotal, sum.amount, currency)
                    rowCount = try Self.checked(rowCount, sum.count, currency)
                    columnTotals[column] = try Self.checked(columnTotals[column], sum.amount, currency)
                }
                total = try Self.checked(total, rowTotal, currency)
                count = try Self.checked(count, rowCount, currency)
                rows.append(CurrencyStatistics.Row(amounts: query.byCategory ? amounts : [], total: rowTotal, count: rowCount))
            }
            if !query.byCategory { columnTotals = [] }
            tables.append(CurrencyStatistics(
                currency: currency, categories: categories, rows: rows, columnTotals: columnTotals,
                columnAverages: columnTotals.map { CurrencyStatistics.average($0, over: spans.count) },
                total: total, count: count, average: CurrencyStatistics.average(total, over: spans.count)))
        }
        return PeriodStatistics(query: query, periods: spans, tables: tables)
    }

    /// `a + b` through ``Aggregator/checkedSum(_:_:)``, its overflow named by currency.
    private static func checked(_ a: Int64, _ b: Int64, _ currency: Currency) throws(StatisticsError) -> Int64 {
        do { return try Aggregator.checkedSum(a, b) } catch { throw .amountOverflow(currency) }
    }

    /// The statistics of `expenses` in one pass.
    /// - Throws: ``StatisticsError/amountOverflow(_:)``.
    public static func statistics<S: Sequence<Expense>>(_ expenses: S, query: StatisticsQuery) throws -> PeriodStatistics {
        var builder = PeriodStatisticsBuilder(query: query)
        for expense in expenses { try builder.add(expense) }
        return try builder.build()
    }
}
