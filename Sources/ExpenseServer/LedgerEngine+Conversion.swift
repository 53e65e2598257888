import ExpenseCore
import ExpenseProtocol

extension LedgerEngine {
    /// A summary read from the live expenses themselves rather than the store's aggregates, which know neither
    /// rates nor tags: only the expenses carrying every tag of `query.tags` (``ExpenseCore/ExpenseTags/containsAll(_:_:)``,
    /// the client's rule), and with a `conversion` (Protocol.md §5.4, `in` and `at`) each converted and rounded once
    /// by the core's ``ExpenseCore/CurrencyConverter`` (the client's own function over its copy), then totalled. The
    /// range's expenses and the ledger's rates are read as one state (``LedgerStore/records(_:)``), on the ledger's
    /// thread. `at: end` values an amount at its month's last day when grouped by month, else at the query's `to`, or
    /// the daemon's today when the range is open.
    /// - Throws: ``LedgerError/storage(_:)``; a total that does not fit in 64 bits is −32603 with reason
    ///   `amount_overflow`, never a wrong number.
    func summary(_ query: SummaryQuery, fromRecords conversion: ViewConversion?) throws -> SummaryResult {
        let records: SelectedRecords
        do {
            records = try store.records(.converting(from: query.from, to: query.to))
        } catch {
            throw LedgerError.storage(error)
        }
        var aggregator = Aggregator(query: query)
        // By date only: the aggregator keeps the query's category, which a part of another category's expense may be.
        let dates = SummaryQuery(from: query.from, to: query.to)
        let expenses = records.expenses.lazy.filter {
            dates.matches(date: $0.date, category: $0.category) && ExpenseTags.containsAll($0.tags, query.tags)
        }
        do {
            guard let conversion else {
                for expense in expenses { try aggregator.add(expense) }
                return SummaryResult(summary: aggregator.summary, cursor: records.head)
            }
            var converter = CurrencyConverter(table: RateTable(records.rates, ledgerCurrency: rules.ledgerCurrency), conversion)
            let today = CalendarDay.today()
            for expense in expenses {
                let end = query.groupBy == .month ? expense.date.monthEnd : (query.to ?? today)
                if let converted = converter.convert(expense, periodEnd: end) { try aggregator.add(converted) }
            }
            return SummaryResult(summary: aggregator.summary, cursor: records.head, conversion: conversion, unconverted: converter.unconverted)
        } catch {
            throw RPCError(code: RPCError.internalErrorCode, message: "a total does not fit in 64 bits", reason: "amount_overflow")
        }
    }
}

extension LedgerEngine {
    /// `stats` read from the live expenses themselves rather than the per-day totals, which know neither rates nor
    /// tags: only the expenses carrying every tag of `query.tags`, and with a `conversion` (Protocol.md §5.10, `in`
    /// and `at`) built by the core's ``ExpenseCore/ConvertedStatisticsBuilder``, the client's own function over its
    /// copy. The range's expenses and the ledger's rates are read as one state (``LedgerStore/records(_:)``):
    /// O(expenses in the range).
    /// - Throws: ``LedgerError/storage(_:)``; a sum that does not fit in 64 bits is −32603 with reason
    ///   `amount_overflow`, never a wrong number.
    package func statistics(_ query: StatisticsQuery, fromRecords conversion: ViewConversion?) throws -> StatsResult {
        let records: SelectedRecords
        do {
            records = try store.records(.converting(from: query.from, to: query.to))
        } catch {
            throw LedgerError.storage(error)
        }
        let expenses = records.expenses.lazy.filter { ExpenseTags.containsAll($0.tags, query.tags) }
        do {
            guard let conversion else {
                return StatsResult(statistics: try PeriodStatisticsBuilder.statistics(expenses, query: query), cursor: records.head)
            }
            var builder = ConvertedStatisticsBuilder(query: query, converter: CurrencyConverter(table: rateTable(records), conversion))
            for expense in expenses { try builder.add(expense) }
            return StatsResult(statistics: try builder.build(), cursor: records.head, conversion: conversion,
                               unconverted: builder.converter.unconverted)
        } catch let error as StatisticsError {
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
