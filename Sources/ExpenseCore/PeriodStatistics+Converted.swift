import FoundationEssentials

/// Statistics in one currency (`stats --in`): each expense converted and rounded once by a
/// ``CurrencyConverter``, then added to a ``PeriodStatisticsBuilder``, so a cell is a sum of converted amounts.
/// The client over its local copy and the daemon over its own records both build them here.
public struct ConvertedStatisticsBuilder: Sendable {
    /// The query as asked: its ``StatisticsQuery/currency`` picks the expenses' own currency, before they are
    /// converted, and the built statistics carry it.
    public let query: StatisticsQuery
    /// The converter, holding what it could not convert (``CurrencyConverter/unconverted``).
    public private(set) var converter: CurrencyConverter
    private var builder: PeriodStatisticsBuilder

    public init(query: StatisticsQuery, converter: CurrencyConverter) {
        self.query = query
        self.converter = converter
        var converted = query
        // Every converted amount is in the target currency: the query's own currency filters before that.
        converted.currency = nil
        builder = PeriodStatisticsBuilder(query: converted)
    }

    /// Adds `expense` (an expense, or one member's part of it) converted by ``converter`` when it is dated in the
    /// query's range and in its currency (when it names one); `--at end` values it on the last day of its
    /// row's period (a whole week, month, quarter or year, whatever the range cuts off). One with no rate is
    /// left out, counted by the converter.
    /// - Throws: ``StatisticsError/amountOverflow(_:)``.
    public mutating func add(_ expense: Expense) throws(StatisticsError) {
        guard expense.date >= query.from, expense.date <= query.to, query.currency.map({ $0 == expense.currency }) ?? true else { return }
        let end = query.period.end(startingOn: query.period.start(containing: expense.date))
        if let converted = converter.convert(expense, periodEnd: end) { try builder.add(converted) }
    }

    /// The statistics of what was added, in the converter's target currency, under the query as asked.
    /// - Throws: ``StatisticsError/amountOverflow(_:)``.
    public func build() throws(StatisticsError) -> PeriodStatistics {
        var statistics = try builder.build()
        statistics.query = query
        return statistics
    }
}
