import FoundationEssentials

/// A calendar day (`YYYY-MM-DD`) in the proleptic Gregorian calendar, with no time and no time zone,
/// so an expense never drifts to another day when a laptop changes time zone.
public struct CalendarDay: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    init(uncheckedYear year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// A real day between 1900-01-01 and 9999-12-31, or `nil`.
    public init?(year: Int, month: Int, day: Int) {
        guard (1900...9999).contains(year), (1...12).contains(month),
              day >= 1, day <= CalendarDay.daysIn(month: month, year: year)
        else { return nil }
        self.init(uncheckedYear: year, month: month, day: day)
    }

    /// Parses exactly `YYYY-MM-DD` (ten ASCII characters, zero-padded); anything else is `nil`.
    public init?(_ text: String) {
        // Read in place (a pull checks a million dates): no array of the bytes.
        var text = text
        guard let day = text.withUTF8({ CalendarDay(utf8: $0) }) else { return nil }
        self = day
    }

    /// ``init(_:)`` over UTF-8 bytes.
    public init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// Today in the machine's current time zone.
    public static func today(now: Date = Date(), timeZone: TimeZone = .current) -> CalendarDay {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: now)
        return CalendarDay(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)
            ?? ExpenseRules.earliestDate
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        // A day of the valid range (years 1900 to 9999) is written straight into its 10 bytes: the daemon writes
        // one per history entry; the general form below gives the same text (CalendarDayTests).
        guard (0...9999).contains(year), (1...12).contains(month), (1...31).contains(day) else { return paddedDescription }
        return String(unsafeUninitializedCapacity: 10) { out in
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var rest = value
                for position in stride(from: offset + width - 1, through: offset, by: -1) {
                    out[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            put(year, 4, at: 0)
            out[4] = UInt8(ascii: "-")
            put(month, 2, at: 5)
            out[7] = UInt8(ascii: "-")
            put(day, 2, at: 8)
            return 10
        }
    }

    /// ``description`` for any value, zero-padded (internal for the test against the fast path).
    var paddedDescription: String {
        Self.padded(year, 4) + "-" + Self.padded(month, 2) + "-" + Self.padded(day, 2)
    }

    /// `YYYY-MM`, the key of a month group.
    public var monthKey: String { Self.padded(year, 4) + "-" + Self.padded(month, 2) }

    /// The day as one sortable integer, `YYYYMMDD`.
    public var ordinal: Int { year * 10_000 + month * 100 + day }

    /// The inverse of ``ordinal``.
    public init?(ordinal: Int) {
        self.init(year: ordinal / 10_000, month: ordinal / 100 % 100, day: ordinal % 100)
    }

    public static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool { lhs.ordinal < rhs.ordinal }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
