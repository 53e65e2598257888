import ExpenseCore
import ExpenseProtocol

extension LedgerEngine {
    /// A summary converted into one currency (Protocol.md §5.4, `in` and `at`): the live expenses of the query's
    /// range and the ledger's rates, read as one state (``LedgerStore/records(_:)``), each expense converted and
    /// rounded once by the core's ``ExpenseCore/CurrencyConverter`` (the client's own function over its copy),
    /// then totalled. Reads every expense of the range on the ledger's thread, where an unconverted summary reads
    /// aggregates. `at: end` values an amount at its month's last day when grouped by month, else at the query's
    /// `to`, or the daemon's today when the range is open.
    /// - Throws: ``LedgerError/storage(_:)``; a total that does not fit in 64 bits is −32603 with reason
    ///   `amount_overflow`, never a wrong number.
    func summary(_ query: SummaryQuery, converting conversion: ViewConversion) throws -> SummaryResult {
        let records: SelectedRecords
        do {
            records = try store.records(.converting(from: query.from, to: query.to))
        } catch {
            throw LedgerError.storage(error)
        }
        var converter = CurrencyConverter(table: RateTable(records.rates, ledgerCurrency: rules.ledgerCurrency), conversion)
        var aggregator = Aggregator(query: query)
        let today = CalendarDay.today()
        // By date only: the aggregator keeps the query's category, which a part of another category's expense may be.
        let dates = SummaryQuery(from: query.from, to: query.to)
        do {
            for expense in records.expenses where dates.matches(date: expense.date, category: expense.category) {
                let end = query.groupBy == .month ? expense.date.monthEnd : (query.to ?? today)
                if let converted = converter.convert(expense, periodEnd: end) { try aggregator.add(converted) }
            }
        } catch {
            throw RPCError(code: RPCError.internalErrorCode, message: "a converted total does not fit in 64 bits", reason: "amount_overflow")
        }
        return SummaryResult(summary: aggregator.summary, cursor: records.head, conversion: conversion, unconverted: converter.unconverted)
    }
}

extension LedgerEngine {
    /// `stats` converted into one currency (Protocol.md §5.10, `in` and `at`): the live expenses of the query's
    /// range and the ledger's rates, read as one state (``LedgerStore/records(_:)``), built by the core's
    /// ``ExpenseCore/ConvertedStatisticsBuilder``, the client's own function over its copy. Reads every expense of
    /// the range (O(expenses in the range)) where unconverted statistics read per-day totals.
    /// - Throws: ``LedgerError/storage(_:)``; a sum that does not fit in 64 bits is −32603 with reason
    ///   `amount_overflow`, never a wrong number.
    package func statistics(_ query: StatisticsQuery, converting conversion: ViewConversion) throws -> StatsResult {
        let records: SelectedRecords
        do {
            records = try store.records(.converting(from: query.from, to: query.to))
        } catch {
            throw LedgerError.storage(error)
        }
        var builder = ConvertedStatisticsBuilder(query: query, converter: CurrencyConverter(table: rateTable(records), conversion))
        do throws(StatisticsError) {
            for expense in records.expenses { try builder.add(expense) }
            return StatsResult(statistics: try builder.build(), cursor: records.head, conversion: conversion,
                               unconverted: builder.converter.unconverted)
        } catch {
            throw RPCError(code: RPCError.internalErrorCode, message: error.message, reason: error.code)
        }
    }

    /// `balances` converted into one currency (Protocol.md §5.11, `in` and `at`): the shared expenses, the
    /// transfers and the rates read as one state, through the core's
    /// ``ExpenseCore/Balances/init(expenses:transfers:currency:converting:periodEnd:)`` (each amount converted
    /// once, then divided by its split), the client's own function. `at: end` values them on `today`.
    /// - Throws: as ``balances(currency:)``.
    package func balances(currency: Currency?, converting conversion: ViewConversion, today: CalendarDay) throws -> BalancesResult {
        let records: SelectedRecords
        do {
            records = try store.records(.convertedBalances)
        } catch {
            throw LedgerError.storage(error)
        }
        var converter = CurrencyConverter(table: rateTable(records), conversion)
        do throws(SplitError) {
            let balances = try records.balances(in: currency, converting: &converter, periodEnd: today)
            // Converted, every row is in the target currency, whatever `currency` picked among the records.
            return BalancesResult(balances, currency: nil, cursor: records.head, conversion: conversion, unconverted: converter.unconverted)
        } catch {
            throw RPCError(code: RPCError.internalErrorCode, message: error.message, reason: error.code)
        }
    }

    /// The rates among `records`, over the ledger's currency (the one a conversion may go through).
    private func rateTable(_ records: SelectedRecords) -> RateTable {
        RateTable(records.rates, ledgerCurrency: rules.ledgerCurrency)
    }
}
