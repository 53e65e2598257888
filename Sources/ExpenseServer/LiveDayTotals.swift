import ExpenseCore
import FoundationEssentials

/// The SQLite store's sums and counts of its LIVE records per (day, category, currency) and per (month, category,
/// currency), in memory: what `summary` and `stats` read (Protocol.md §5.4, §5.10), never the records.
///
/// Derived data, a function of the live rows of `records` and nothing else, so it is not kept in the file: the
/// store builds it at open in the scan that builds its id → seq map (``SQLiteLedgerStore``), and a group commit
/// writes nothing for it (the totals' scattered keys cost a single push ~5 KB of writes when they were in it).
///
/// Layout: per month (`YYYYMM`), one dictionary of day cells and one of whole-month cells, keyed by small numbers
/// (the category's in ``categories``, the currency's, the day of the month). A summary reads the whole-month cells
/// of the months its range covers entirely and the day cells of the (at most two) months at its edges; a change
/// touches one day cell and one month cell. Categories are told apart by their bytes (``ExpenseCore/ExactText``):
/// "café" in NFC and in NFD are two cells, as they are two values.
///
/// Built at open by ``Builder``. A 1M-expense ledger of the bench (730 days × 12 categories, one currency) holds
/// ~8,800 day cells and ~290 month cells: about 0.3 MB.
///
/// - Important: Changes made by ``add(_:sign:)`` are journalled until ``commit()``; ``rollBack()`` takes them all
///   back, so nothing of a failed transaction stays (a category or currency first seen in it keeps its number,
///   which no cell then uses: numbers are invisible). A cell left with no count and no amount is removed.
struct LiveDayTotals {
    /// The sum and count of one cell's live records.
    struct Cell {
        var amount: Int64 = 0
        var count: Int64 = 0
    }

    /// A cell's place in its month, packed in one word (one `Hasher` round per lookup): the category's number in
    /// ``LiveDayTotals/categories`` (bits 0–31), the currency's in ``LiveDayTotals/currencies`` (32–47) and the
    /// day of the month (48–55; 0 for a whole-month cell).
    ///
    /// An ``ExpenseCore/TotalsKey`` with its category and currency numbered: made for an expense's by
    /// ``cellKey(interning:)`` and turned back into one by ``totalsKey(_:month:)``, so which records share a cell
    /// is the core's rule (the numbering tells texts apart by their bytes, as ``ExpenseCore/ExactText`` does).
    /// Kept packed, not keyed by `TotalsKey` itself, for speed and memory: every record version a push moves looks
    /// up a day cell and a month cell, where a `TotalsKey` would hash the category's bytes and the currency's code
    /// twice, this one word; a cell holds 6 bytes of key instead of two `String`s; and ``Builder`` numbers a
    /// million rows at open from SQLite's bytes without making a `String` per row. As it is, ``add(_:sign:)``
    /// costs about 1.6k instructions per record version (two text look-ups, two one-word cell look-ups) and
    /// ``Builder`` about 785 per row.
    struct CellKey: Hashable {
        let bits: UInt64

        init(category: UInt32, currency: UInt16, day: UInt8) {
            bits = UInt64(category) | UInt64(currency) << 32 | UInt64(day) << 48
        }

        var category: UInt32 { UInt32(truncatingIfNeeded: bits) }
        var currency: UInt16 { UInt16(truncatingIfNeeded: bits >> 32) }
        var day: UInt8 { UInt8(truncatingIfNeeded: bits >> 48) }
        /// The whole month's cell of the same category and currency.
        var month: CellKey { CellKey(category: category, currency: currency, day: 0) }
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

    /// The cells by month (`YYYYMM`).
    var months: [Int: Month] = [:]
    /// The categories of the cells, by number.
    var categories = InternedTexts()
    /// The currencies of the cells, by number, and their codes (the same numbers).
    var currencies: [Currency] = []
    var currencyCodes = InternedTexts()
    /// The currency ``number(of:)`` numbered last: a push's records mostly share one, and a code compared costs
    /// less than a code hashed.
    private var lastCurrency: (code: String, number: UInt16)?
    /// Why the totals cannot be read: a live record in the file with no valid date or currency (a file changed
    /// behind the daemon's back; ``Builder``). `summary` and `stats` then fail rather than leave it out.
    var damage: String?
    private var journal: [Change] = []

    /// Moves `expense`'s amount and count into (`sign` 1) or out of (`sign` -1) its day's and month's cells,
    /// journalled until ``commit()``. An expense with parts moves each part into its own category's cells (an
    /// amount and no count) and the remainder into its category's (``ExpenseCore/Expense/forEachCategoryShare(_:)``).
    /// - Important: The rules check overflow before writing (Protocol.md §7.5): a cell's sum is at most its
    ///   currency's live total, so a cell that overflows is a programmer error (`precondition`).
    /// - Returns: the currency's number (``number(of:)``).
    @discardableResult
    mutating func add(_ expense: Expense, sign: Int64) -> UInt16 {
        let ordinal = expense.date.ordinal
        let cell = cellKey(interning: expense)
        guard let parts = expense.parts else {
            let change = Change(month: ordinal / 100, key: cell, amount: sign * expense.amount, count: sign)
            let applied = apply(change)
            precondition(applied, "the rules check overflow before writing")
            journal.append(change)
            return cell.currency
        }
        // The parts add up to less than the amount (validated), so the remainder is positive.
        var changes = [Change(month: ordinal / 100, key: cell, amount: sign * (expense.amount - parts.sum), count: sign)]
        for part in parts.parts {
            let key = CellKey(category: categories.intern(part.category), currency: cell.currency, day: cell.day)
            changes.append(Change(month: ordinal / 100, key: key, amount: sign * part.amount, count: 0))
        }
        for change in changes {
            let applied = apply(change)
            precondition(applied, "the rules check overflow before writing")
            journal.append(change)
        }
        return cell.currency
    }

    /// The cell key of `expense`'s ``ExpenseCore/TotalsKey``, numbering its category and currency if they are new.
    /// Made from the expense's fields, not from a `TotalsKey` value: building one copies three strings, which cost a
    /// 500-mutation push about 0.5 % (~230 instructions per record version); debug builds check that the cell
    /// key gives that `TotalsKey` back.
    mutating func cellKey(interning expense: Expense) -> CellKey {
        let ordinal = expense.date.ordinal
        let cell = CellKey(category: categories.intern(expense.category), currency: number(of: expense.currency),
                           day: UInt8(ordinal % 100))
        assert(totalsKey(cell, month: ordinal / 100) == TotalsKey(expense), "a cell key gives back its expense's TotalsKey")
        return cell
    }

    /// The ``ExpenseCore/TotalsKey`` of the cell `key` of `month` (`YYYYMM`): a day's key, or the month's for a
    /// whole-month cell (day 0).
    func totalsKey(_ key: CellKey, month: Int) -> TotalsKey {
        let span = key.day == 0 ? month : month * 100 + Int(key.day)
        return TotalsKey(span: span, category: categories[key.category], currency: currencies[Int(key.currency)])
    }

    /// The number of `currency`, numbering it if it is new.
    mutating func number(of currency: Currency) -> UInt16 {
        if let lastCurrency, ExactText.same(lastCurrency.code, currency.code) { return lastCurrency.number }
        let interned = currencyCodes.intern(currency.code)
        if Int(interned) == currencies.count { currencies.append(currency) }
        precondition(interned <= UInt16.max, "there are fewer currencies than that")
        let number = UInt16(interned)
        lastCurrency = (currency.code, number)  // numbers never change, even when a transaction is taken back
        return number
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
    ///   ``LedgerError/storageFailed(_:)`` when the file holds a live record with no valid date or currency.
    func summary(_ query: SummaryQuery) throws -> Summary {
        if let damage { throw LedgerError.storageFailed(damage) }
        var aggregator = Aggregator(query: query)
        var wanted: UInt32?
        if let category = query.category {
            guard let number = categories.number(of: category.trimmingWhitespace) else {
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
        // Grouped by category or not at all, a cell in the range counts the same whatever its date: the cells are
        // summed by category and currency first (one word's hash each), and the core's aggregator, which hashes
        // the category's text, gets one addition per sum instead of one per month's cell (288 for two years of
        // twelve categories). All amounts are positive, so a sum overflows only where the aggregator's would.
        var sums: [CellKey: (cell: Cell, ordinal: Int)]? = query.groupBy == .month ? nil : [:]
        func take(_ cell: Cell, _ key: CellKey, ordinal: Int) throws {
            guard sums != nil else { return try add(cell, key, ordinal: ordinal, to: &aggregator) }
            let group = key.month
            guard let held = sums?[group] else {
                sums?[group] = (cell, ordinal)
                return
            }
            let amount = try Aggregator.checkedSum(held.cell.amount, cell.amount)
            let count = try Aggregator.checkedSum(held.cell.count, cell.count)
            sums?[group] = (Cell(amount: amount, count: count), held.ordinal)
        }
        for (month, cells) in months {
            if month >= firstWhole && month <= lastWhole {
                for (key, cell) in cells.whole where wanted == nil || key.category == wanted {
                    try take(cell, key, ordinal: month * 100 + 1)
                }
            } else if month * 100 + 31 >= from && month * 100 + 1 <= to {
                for (key, cell) in cells.days where wanted == nil || key.category == wanted {
                    let ordinal = month * 100 + Int(key.day)
                    if ordinal >= from && ordinal <= to { try take(cell, key, ordinal: ordinal) }
                }
            }
        }
        for (key, sum) in sums ?? [:] { try add(sum.cell, key, ordinal: sum.ordinal, to: &aggregator) }
        return aggregator.summary
    }

    private func add(_ cell: Cell, _ key: CellKey, ordinal: Int, to aggregator: inout Aggregator) throws {
        let total = try dayTotal(cell, key, ordinal: ordinal)
        try aggregator.add(amount: total.amount, count: total.count, currency: total.currency, category: total.category,
                           date: total.day)
    }

    /// Calls `body` with the cell of each day, category and currency with live records dated `from` … `to`, by
    /// day, then by category and currency number.
    /// - Throws: what `body` throws; ``LedgerError/storageFailed(_:)`` when the file holds a live record with no
    ///   valid date or currency.
    func forEachDayTotal(from: CalendarDay, to: CalendarDay, _ body: (DayTotal) throws -> Void) throws {
        if let damage { throw LedgerError.storageFailed(damage) }
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

    /// The total of the cell `key` dated `ordinal` (a whole-month cell's: its month's first day, as a summary groups
    /// it).
    private func dayTotal(_ cell: Cell, _ key: CellKey, ordinal: Int) throws -> DayTotal {
        // Every cell's day is a date (``Builder`` and ``add(_:sign:)`` take no other).
        guard let day = CalendarDay(ordinal: ordinal) else {
            throw LedgerError.storageFailed("a live record has an invalid date")
        }
        let totals = totalsKey(key, month: ordinal / 100)
        return DayTotal(day: day, category: totals.category, currency: totals.currency, amount: cell.amount, count: cell.count)
    }

    /// The sum of each currency's live records (currencies with none are absent), from the month cells.
    /// - Throws: ``LedgerError/storageFailed(_:)`` when a sum overflows (a file the rules did not write).
    func currencyTotals() throws -> [Currency: Int64] {
        var totals: [Currency: Int64] = [:]
        for cells in months.values {
            for (key, cell) in cells.whole {
                let currency = currencies[Int(key.currency)]
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
        Self.apply(&days, key, amount: amount, count: count) && Self.apply(&whole, key.month, amount: amount, count: count)
    }

    /// Sets a day cell built at open (``LiveDayTotals/Builder``) and adds it to its month's cell; `false` when the
    /// month's sum overflows.
    mutating func load(_ key: LiveDayTotals.CellKey, _ cell: LiveDayTotals.Cell) -> Bool {
        days[key] = cell
        return Self.apply(&whole, key.month, amount: cell.amount, count: cell.count)
    }

    /// Adds to one cell, removing it when it is empty again (no count and no amount: a cell that holds only
    /// parts of expenses of other categories has an amount and no count); `false` when its sum overflows.
    private static func apply(_ cells: inout [LiveDayTotals.CellKey: LiveDayTotals.Cell], _ key: LiveDayTotals.CellKey,
                              amount: Int64, count: Int64) -> Bool {
        guard let left = add(&cells[key, default: LiveDayTotals.Cell()], amount: amount, count: count) else { return false }
        if left == 0 && cells[key]?.amount == 0 { cells[key] = nil }
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

extension LiveDayTotals {
    /// A sum per currency, by the currency's number (``LiveDayTotals/number(of:)``): the SQLite store's live total
    /// of each currency, found without hashing the currency.
    struct CurrencySums {
        private var sums: [Int64] = []

        /// The sum of the currency numbered `number`: 0 until one is set.
        subscript(number: UInt16) -> Int64 {
            get { Int(number) < sums.count ? sums[Int(number)] : 0 }
            set {
                if Int(number) >= sums.count { sums.append(contentsOf: repeatElement(0, count: Int(number) + 1 - sums.count)) }
                sums[Int(number)] = newValue
            }
        }
    }
}
