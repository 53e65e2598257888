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
