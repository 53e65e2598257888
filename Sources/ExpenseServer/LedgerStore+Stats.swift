import ExpenseCore
import ExpenseProtocol

/// The live records of one day, category and currency, pre-summed: what `stats` reads from a store.
package struct DayTotal: Hashable, Sendable {
    package var day: CalendarDay
    package var category: String
    package var currency: Currency
    package var amount: Int64
    package var count: Int64

    package init(day: CalendarDay, category: String, currency: Currency, amount: Int64, count: Int64) {
        self.day = day
        self.category = category
        self.currency = currency
        self.amount = amount
        self.count = count
    }
}

extension LedgerStore {
    /// The default: one total per live record in the range, read in one consistent read (``records(_:)``);
    /// a store with per-day aggregates answers from them instead.
    package func forEachDayTotal(from: CalendarDay, to: CalendarDay, _ body: (DayTotal) throws -> Void) throws {
        for expense in try records(RecordSelection(expenses: .dated(from: from, to: to), kinds: [])).expenses {
            // Each part in its own category, the remainder (and the count) in the expense's.
            try expense.forEachCategoryShare { category, amount, count in
                try body(DayTotal(day: expense.date, category: category, currency: expense.currency, amount: amount, count: count))
            }
        }
    }
}

extension LedgerEngine {
    /// The statistics of the live records, from the store's per-day totals, through the core's
    /// ``ExpenseCore/PeriodStatisticsBuilder`` (the same code as the client's).
    /// - Throws: ``LedgerError/storage(_:)``; an overflow is `amount_overflow`.
    package func statistics(_ query: StatisticsQuery) throws -> StatsResult {
        do {
            var builder = PeriodStatisticsBuilder(query: query)
            try store.forEachDayTotal(from: query.from, to: query.to) { total in
                try builder.add(amount: total.amount, count: total.count, currency: total.currency,
                                category: total.category, date: total.day)
            }
            return StatsResult(statistics: try builder.build(), cursor: store.head)
        } catch let error as StatisticsError {
            // Unreachable while every currency's live total fits (Protocol.md §7.5); said, never a wrong number.
            throw RPCError(code: RPCError.internalErrorCode, message: error.message, reason: error.code)
        } catch {
            throw LedgerError.storage(error)
        }
    }
}
