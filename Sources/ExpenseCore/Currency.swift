/// An active ISO 4217 currency and the number of digits after its decimal point (its minor unit).
///
/// Amounts are always stored as whole numbers of the minor unit (the Stripe convention):
/// 1250 USD is 12.50 dollars, 1250 JPY is 1250 yen, 1250 BHD is 1.250 dinars.
public struct Currency: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The three upper-case letters, such as `USD`.
    public let code: String
    /// Digits after the decimal point: 2 for USD, 0 for JPY, 3 for BHD.
    public let minorUnits: Int
    /// The English name from the ISO list.
    public let name: String

    init(code: String, minorUnits: Int, name: String) {
        self.code = code
        self.minorUnits = minorUnits
        self.name = name
    }

    /// Hashes the code only: it tells the table's currencies apart, and equal currencies have equal codes, so
    /// this agrees with `==` (which still compares every property). Dictionaries keyed by currency (the live
    /// totals, a summary's) hash one short string instead of three.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }

    /// The currency with exactly this code (upper case), or `nil` if it is not an active ISO 4217 code.
    public init?(code: String) {
        // Every code is three upper-case ASCII letters: their place in a table of all 26³ such words, not a hash
        // of the string (the daemon reads a currency per mutation it validates).
        guard let place = Self.place(of: code) else { return nil }
        let index = Self.indexByPlace[place]
        guard index > 0 else { return nil }
        self = Self.all[Int(index) - 1]
    }

    /// Where the three upper-case letters `code` sit among all 26³ such words; `nil` for any other text.
    @inline(__always)
    private static func place(of code: String) -> Int? {
        var utf8 = code.utf8.makeIterator()
        var place = 0
        for _ in 0..<3 {
            guard let byte = utf8.next(), (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) else { return nil }
            place = place * 26 + Int(byte - UInt8(ascii: "A"))
        }
        return utf8.next() == nil ? place : nil
    }

    /// For each of the 26³ three-letter words, 1 + its currency's index in ``all``, or 0.
    private static let indexByPlace: [UInt16] = {
        var table = [UInt16](repeating: 0, count: 26 * 26 * 26)
        for (index, currency) in all.enumerated() {
            if let place = place(of: currency.code) { table[place] = UInt16(index + 1) }
        }
        return table
    }()

    /// The dollar, the default when nothing else is configured.
    public static let usd = Currency(code: "USD", minorUnits: 2, name: "US Dollar")

    public var description: String { code }

    public static func < (lhs: Currency, rhs: Currency) -> Bool { lhs.code < rhs.code }

}
