import ExpenseCore
import FoundationEssentials

extension LiveDayTotals {
    /// Builds ``LiveDayTotals`` from the live rows of `records` at open, one ``add(day:category:currency:amount:)``
    /// per row from SQLite's bytes: no `String` per row, one hash of the cell per row (into one flat dictionary;
    /// the months and their whole-month cells are made from it once at the end), the currency remembered from
    /// the row before (ledgers hold few). No ``ExpenseCore/TotalsKey`` is made per row (it needs a `String`): the
    /// bytes are numbered as ``LiveDayTotals/cellKey(interning:)`` numbers an expense's texts, by the same table, so a
    /// row lands in the cell its record's key names (`LiveDayTotalsTests` compares both with the records).
    struct Builder {
        /// A day cell while building: its month and its place in it.
        private struct Place: Hashable {
            var month: Int32
            var key: CellKey
        }

        private var totals = LiveDayTotals()
        private var cells: [Place: Cell] = [:]
        /// The sum of each currency's live records, by currency number (those with no valid day included).
        private var currencySums: [Int64] = []
        /// The last currency code read (up to 4 bytes, packed with its length) and its number.
        private var lastCode: UInt64 = .max
        private var lastCurrency: UInt16 = 0
        /// The day cell of the record added last, whose parts ``addParts(_:)`` moves; `nil` when it was not added
        /// to a cell (a day or currency that is none).
        private var lastPlace: Place?

        /// Adds one live record: its day as `YYYYMMDD`, its category's and currency code's UTF-8 bytes, its amount.
        /// A day that is no date or a code that is no currency marks the totals damaged
        /// (``LiveDayTotals/damage``) instead of adding.
        /// - Throws: ``LedgerError/storageFailed(_:)`` when a cell's sum overflows (a file the rules did not write).
        mutating func add(day ordinal: Int, category: UnsafeBufferPointer<UInt8>, currency code: UnsafeBufferPointer<UInt8>,
                          amount: Int64) throws {
            lastPlace = nil
            guard let currency = currencyNumber(code) else {
                totals.damage = "a live record's currency '\(String(decoding: code, as: UTF8.self))' is no currency"
                return
            }
            if Int(currency) == currencySums.count { currencySums.append(0) }
            let sum = currencySums[Int(currency)].addingReportingOverflow(amount)
            guard !sum.overflow else { throw LedgerError.storageFailed("the live records' amounts overflow a total") }
            currencySums[Int(currency)] = sum.partialValue
            guard CalendarDay(ordinal: ordinal) != nil, let month = Int32(exactly: ordinal / 100) else {
                totals.damage = "a live record's day \(ordinal) is no date"
                return
            }
            let place = Place(month: month, key: CellKey(category: totals.categories.intern(bytes: category), currency: currency,
                                                         day: UInt8(ordinal % 100)))
            guard Self.add(amount, count: 1, to: &cells[place, default: Cell()]) else {
                throw LedgerError.storageFailed("the live records' amounts overflow a total")
            }
            lastPlace = place
        }

        /// Moves the parts of the record ``add(day:category:currency:amount:)`` added last (`parts`, its stored
        /// text) out of its own category's cell into their categories' cells (an amount and no count), as
        /// ``LiveDayTotals/add(_:sign:)`` counts them; its currency's sum is unchanged.
        /// - Throws: ``LedgerError/storageFailed(_:)`` when the text is no parts or they do not fit the amount (a
        ///   file the rules did not write).
        mutating func addParts(_ text: String) throws {
            guard let place = lastPlace, let parts = try? ExpenseParts(text: text) else {
                throw LedgerError.storageFailed("a live record's parts are not valid")
            }
            lastPlace = nil
            let sum = parts.sum
            guard let own = cells[place], own.amount > sum, Self.add(-sum, count: 0, to: &cells[place, default: Cell()]) else {
                throw LedgerError.storageFailed("a live record's parts add up to its amount or more")
            }
            for part in parts.parts {
                var partPlace = place
                partPlace.key = CellKey(category: totals.categories.intern(part.category), currency: place.key.currency,
                                        day: place.key.day)
                guard Self.add(part.amount, count: 0, to: &cells[partPlace, default: Cell()]) else {
                    throw LedgerError.storageFailed("the live records' amounts overflow a total")
                }
            }
        }

        /// Adds one record's amount (or a part's, with no count) to `cell`; `false` (the cell unchanged) when its
        /// sum overflows.
        private static func add(_ amount: Int64, count: Int64, to cell: inout Cell) -> Bool {
            let sum = cell.amount.addingReportingOverflow(amount)
            guard !sum.overflow else { return false }
            cell.amount = sum.partialValue
            cell.count += count
            return true
        }

        private mutating func currencyNumber(_ code: UnsafeBufferPointer<UInt8>) -> UInt16? {
            var packed = UInt64(code.count)
            if code.count <= 4 {
                for byte in code { packed = packed << 8 | UInt64(byte) }
                if packed == lastCode { return lastCurrency }
            }
            let number: UInt16
            if let known = totals.currencyCodes.number(ofBytes: code) {
                number = UInt16(known)
            } else if let currency = Currency(code: String(decoding: code, as: UTF8.self)) {
                number = totals.number(of: currency)
            } else {
                return nil
            }
            if code.count <= 4 { (lastCode, lastCurrency) = (packed, number) }
            return number
        }

        /// The sum of each currency's live records added (a record with no valid day included, as its currency
        /// holds it).
        var currencyTotals: [Currency: Int64] {
            Dictionary(uniqueKeysWithValues: zip(totals.currencies, currencySums))
        }

        /// The totals of every record added.
        /// - Throws: ``LedgerError/storageFailed(_:)`` when a month's sum overflows.
        consuming func build() throws -> LiveDayTotals {
            for (place, cell) in cells {
                guard totals.months[Int(place.month), default: Month()].load(place.key, cell) else {
                    throw LedgerError.storageFailed("the live records' amounts overflow a total")
                }
            }
            return totals
        }
    }
}
