import ExpenseCore
import Foundation

/// The SQLite store's sums and counts of its LIVE records per (day, category, currency) and per (month, category,
/// currency), in memory: what `summary` and `stats` read (Protocol.md §5.4, §5.10), never the records.
///
/// Derived data, a function of the live rows of `records` and nothing else, so it is not kept in the file: the
/// store builds it at open in the scan that builds its id → seq map (``SQLiteLedgerStore``), and a group commit
/// writes nothing for it (docs/benchmarks.md, "Round 7, totals in memory").
///
/// Layout: per month (`YYYYMM`), one dictionary of day cells and one of whole-month cells, keyed by small numbers
/// (the category's in ``categories``, the currency's, the day of the month). A summary reads the whole-month cells
/// of the months its range covers entirely and the day cells of the (at most two) months at its edges; a change
/// touches one day cell and one month cell. Categories are told apart by their bytes (``ExpenseCore/ExactText``):
/// "café" in NFC and in NFD are two cells, as they are two values.
///
/// - Important: Changes made by ``add(_:sign:)`` are journalled until ``commit()``; ``rollBack()`` takes them all
///   back, so nothing of a failed transaction stays (a category or currency first seen in it keeps its number,
///   which no cell then uses: numbers are invisible). A cell whose count falls to 0 is removed.
struct LiveDayTotals {
    /// The sum and count of one cell's live records.
    struct Cell {
        var amount: Int64 = 0
        var count: Int64 = 0
    }

    /// A cell's place in its month: the day of the month (0 for a whole-month cell), the category's number in
    /// ``LiveDayTotals/categories`` and the currency's in ``LiveDayTotals/currencyCodes``.
    struct CellKey: Hashable {
        var category: UInt32
        var currency: UInt32
        var day: UInt8
    }

    /// One month's cells.
    struct Month {
        var days: [CellKey: Cell] = [:]
        var whole: [CellKey: Cell] = [:]
    }

    /// One journalled change, taken back by ``rollBack()``.
    private struct Change {
        var month: Int
        var key: CellKey
        var amount: Int64
        var count: Int64
    }

    private var months: [Int: Month] = [:]
    /// The categories of the cells, by number.
    private(set) var categories = InternedTexts()
    /// The currency codes of the cells, by number, and their currencies (`nil` for a code in the file that is
    /// no currency: reading such a cell fails, as reading its record does).
    private var currencyCodes = InternedTexts()
    private var currencies: [Currency?] = []
    private var journal: [Change] = []

    /// Moves `expense`'s amount and count into (`sign` 1) or out of (`sign` -1) its day's and month's cells,
    /// journalled until ``commit()``.
    /// - Important: The rules check overflow before writing (Protocol.md §7.5): a cell's sum is at most its
    ///   currency's live total, so a cell that overflows is a programmer error (`precondition`).
    mutating func add(_ expense: Expense, sign: Int64) {
        let currency = currencyCodes.intern(expense.currency.code)
        if Int(currency) == currencies.count { currencies.append(expense.currency) }
        let ordinal = expense.date.ordinal
        let change = Change(month: ordinal / 100,
                            key: CellKey(category: categories.intern(expense.category), currency: currency,
                                         day: UInt8(ordinal % 100)),
                            amount: sign * expense.amount, count: sign)
        let applied = apply(change)
        precondition(applied, "the rules check overflow before writing")
        journal.append(change)
    }

    /// Adds one live record read from the file at open (not journalled): its day as `YYYYMMDD` and its
    /// category's and currency code's UTF-8 bytes, without making a `String` unless the text is new.
    /// - Throws: ``LedgerError/storageFailed(_:)`` when a cell's sum overflows (a file the rules did not write).
    mutating func load(day ordinal: Int, category: UnsafeBufferPointer<UInt8>, currency code: UnsafeBufferPointer<UInt8>,
                       amount: Int64) throws {
        let currency = currencyCodes.intern(bytes: code)
        if Int(currency) == currencies.count { currencies.append(Currency(code: currencyCodes[currency])) }
        // A day that is no date keeps its cell (any day-of-month byte); reading the cell then fails.
        let change = Change(month: ordinal / 100,
                            key: CellKey(category: categories.intern(bytes: category), currency: currency,
                                         day: UInt8(truncatingIfNeeded: ordinal % 100)),
                            amount: amount, count: 1)
        guard apply(change) else { throw LedgerError.storageFailed("the live records' amounts overflow a total") }
    }

    /// Forgets the journal: the changes since the last commit stay.
    mutating func commit() {
        journal.removeAll(keepingCapacity: true)
    }

    /// Takes back every change since the last ``commit()``, newest first.
    mutating func rollBack() {
        for change in journal.reversed() {
            let taken = apply(Change(month: change.month, key: change.key, amount: -change.amount, count: -change.count))
            precondition(taken, "taking back a change gives sums that were already held")
        }
        journal.removeAll(keepingCapacity: true)
    }

    /// Adds `change` to its day's and month's cells; `false` (the cells unusable) when a sum overflows.
    private mutating func apply(_ change: Change) -> Bool {
        months[change.month, default: Month()].apply(change.key, amount: change.amount, count: change.count)
    }

    // MARK: - Reading

    /// The summary of the live records `query` covers, through the core's ``ExpenseCore/Aggregator``: whole
    /// months from the month cells, the days of the months at the range's edges from the day cells.
    /// - Throws: ``ExpenseCore/ValidationError/amountOverflow`` (unreachable while Protocol.md §7.5 holds);
    ///   ``LedgerError/storageFailed(_:)`` for a cell of a record with no valid date or currency.
    func summary(_ query: SummaryQuery) throws -> Summary {
        var aggregator = Aggregator(query: query)
        var wanted: UInt32?
        if let category = query.category {
            guard let number = categories.number(of: category.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                return aggregator.summary
            }
            wanted = number
        }
        let from = query.from?.ordinal ?? Int.min, to = query.to?.ordinal ?? Int.max
        let firstWhole = query.from.map {
            $0.day == 1 ? SQLiteLedgerStore.month($0) : SQLiteLedgerStore.month(after: SQLiteLedgerStore.month($0))
        } ?? Int.min
        let lastWhole = query.to.map {
            SQLiteLedgerStore.isLastDayOfMonth($0) ? SQLiteLedgerStore.month($0) : SQLiteLedgerStore.month(before: SQLiteLedgerStore.month($0))
        } ?? Int.max
        for (month, cells) in months {
            if month >= firstWhole && month <= lastWhole {
                for (key, cell) in cells.whole where wanted == nil || key.category == wanted {
                    try add(cell, key, ordinal: month * 100 + 1, to: &aggregator)
                }
            } else if month * 100 + 31 >= from && month * 100 + 1 <= to {
                for (key, cell) in cells.days where wanted == nil || key.category == wanted {
                    let ordinal = month * 100 + Int(key.day)
                    if ordinal >= from && ordinal <= to { try add(cell, key, ordinal: ordinal, to: &aggregator) }
                }
            }
        }
        return aggregator.summary
    }

    private func add(_ cell: Cell, _ key: CellKey, ordinal: Int, to aggregator: inout Aggregator) throws {
        let total = try dayTotal(cell, key, ordinal: ordinal)
        try aggregator.add(amount: total.amount, count: total.count, currency: total.currency, category: total.category,
                           date: total.day)
    }

    /// Calls `body` with the cell of each day, category and currency with live records dated `from` … `to`, by
    /// day, then by category and currency number.
    /// - Throws: what `body` throws; ``LedgerError/storageFailed(_:)`` for a cell of a record with no valid date
    ///   or currency.
    func forEachDayTotal(from: CalendarDay, to: CalendarDay, _ body: (DayTotal) throws -> Void) throws {
        let low = from.ordinal, high = to.ordinal
        for month in months.keys.sorted() where month * 100 + 31 >= low && month * 100 + 1 <= high {
            guard let cells = months[month]?.days else { continue }
            var inRange: [(ordinal: Int, key: CellKey, cell: Cell)] = []
            for (key, cell) in cells {
                let ordinal = month * 100 + Int(key.day)
                if ordinal >= low && ordinal <= high { inRange.append((ordinal, key, cell)) }
            }
            inRange.sort { ($0.ordinal, $0.key.category, $0.key.currency) < ($1.ordinal, $1.key.category, $1.key.currency) }
            for entry in inRange { try body(try dayTotal(entry.cell, entry.key, ordinal: entry.ordinal)) }
        }
    }

    private func dayTotal(_ cell: Cell, _ key: CellKey, ordinal: Int) throws -> DayTotal {
        guard let day = CalendarDay(ordinal: ordinal), let currency = currencies[Int(key.currency)] else {
            throw LedgerError.storageFailed("a live record has an invalid date or currency")
        }
        return DayTotal(day: day, category: categories[key.category], currency: currency, amount: cell.amount,
                        count: cell.count)
    }

    /// The sum of each currency's live records (currencies with none are absent), from the month cells.
    /// - Throws: ``LedgerError/storageFailed(_:)`` when a sum overflows (a file the rules did not write).
    func currencyTotals() throws -> [Currency: Int64] {
        var totals: [Currency: Int64] = [:]
        for cells in months.values {
            for (key, cell) in cells.whole {
                guard let currency = currencies[Int(key.currency)] else { continue }
                let sum = (totals[currency] ?? 0).addingReportingOverflow(cell.amount)
                guard !sum.overflow else { throw LedgerError.storageFailed("the live records' amounts overflow a total") }
                totals[currency] = sum.partialValue
            }
        }
        return totals
    }

    /// How many day cells and whole-month cells there are (tests; what the memory holds).
    var cellCounts: (days: Int, months: Int) {
        months.values.reduce((0, 0)) { ($0.0 + $1.days.count, $0.1 + $1.whole.count) }
    }
}

extension LiveDayTotals.Month {
    /// Adds to the day's cell and to the month's cell of the same category and currency; `false` when a sum
    /// overflows.
    mutating func apply(_ key: LiveDayTotals.CellKey, amount: Int64, count: Int64) -> Bool {
        var monthKey = key
        monthKey.day = 0
        return Self.apply(&days, key, amount: amount, count: count) && Self.apply(&whole, monthKey, amount: amount, count: count)
    }

    /// Adds to one cell, removing it when its count falls to 0; `false` when its sum overflows.
    private static func apply(_ cells: inout [LiveDayTotals.CellKey: LiveDayTotals.Cell], _ key: LiveDayTotals.CellKey,
                              amount: Int64, count: Int64) -> Bool {
        guard let left = add(&cells[key, default: LiveDayTotals.Cell()], amount: amount, count: count) else { return false }
        if left == 0 { cells[key] = nil }
        return true
    }

    /// Adds to `cell`; returns its new count, or `nil` (the cell unchanged) when its sum overflows.
    private static func add(_ cell: inout LiveDayTotals.Cell, amount: Int64, count: Int64) -> Int64? {
        let sum = cell.amount.addingReportingOverflow(amount)
        guard !sum.overflow else { return nil }
        cell.amount = sum.partialValue
        cell.count += count
        return cell.count
    }
}
