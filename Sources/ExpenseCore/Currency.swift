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
        guard let found = Currency.byCode[code] else { return nil }
        self = found
    }

    /// The dollar, the default when nothing else is configured.
    public static let usd = Currency(code: "USD", minorUnits: 2, name: "US Dollar")

    public var description: String { code }

    public static func < (lhs: Currency, rhs: Currency) -> Bool { lhs.code < rhs.code }

    private static let byCode: [String: Currency] = Dictionary(
        uniqueKeysWithValues: all.map { ($0.code, $0) }
    )
}
