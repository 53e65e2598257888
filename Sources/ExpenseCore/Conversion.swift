/// One exact conversion of money between currencies, the same function for the client and the daemon: an
/// amount in minor units times the rates of a ``ConversionPath``, each an exact fraction, rounded once, half to
/// even, to the target's minor units. No floating point, no intermediate rounding.
public enum Conversion {
    /// `amount` (minor units of the path's ``ConversionPath/from``) in minor units of its ``ConversionPath/to``:
    /// amount × each step's rate (mantissa / 10^scale, or 10^scale / mantissa inverted) × 10^(to's minor units −
    /// from's), rounded once, half to even (symmetric: −0.5 rounds to 0 and −1.5 to −2).
    ///
    /// The product is computed exactly in 256 bits: |amount| < 2^64, and the path's numerator and denominator
    /// are each below 10^34 (two factors of at most 10^15, times at most 10^4 for the minor units), under 2^113.
    /// - Returns: the converted amount, or `nil` when its magnitude exceeds ``ExpenseRules/maximumAmount`` (the
    ///   largest amount every JSON peer reads exactly): overflow is reported, never wrapped.
    public static func convert(_ amount: Int64, along path: ConversionPath) -> Int64? {
        guard !path.steps.isEmpty else { return amount.magnitude <= UInt64(ExpenseRules.maximumAmount) ? amount : nil }
        let product = UInt128(amount.magnitude).multipliedFullWidth(by: path.numerator)
        // dividingFullWidth traps when the quotient does not fit 128 bits, which is exactly when high ≥ divisor;
        // such a quotient is far above any amount anyway.
        guard product.high < path.denominator else { return nil }
        let (whole, remainder) = path.denominator.dividingFullWidth(product)
        let limit = UInt128(ExpenseRules.maximumAmount)
        guard whole <= limit else { return nil }
        // remainder < denominator < 2^113, so doubling it cannot overflow.
        let twice = remainder << 1
        var quotient = whole
        if twice > path.denominator || (twice == path.denominator && quotient & 1 == 1) { quotient += 1 }
        guard quotient <= limit else { return nil }
        let magnitude = Int64(quotient)
        return amount < 0 ? -magnitude : magnitude
    }

    /// 10^exponent for 0 … 19.
    static func power(ofTen exponent: Int) -> UInt128 {
        var value: UInt128 = 1
        for _ in 0..<exponent { value *= 10 }
        return value
    }
}

/// One rate a conversion used, and which way: a rate of FROM → TO used as it is, or a rate of TO → FROM used
/// as its inverse (1 / rate).
public struct ConversionStep: Hashable, Sendable, CustomStringConvertible {
    /// The record used, with its date.
    public let rate: ExchangeRate
    /// Whether the record's inverse was used: converting from its ``ExchangeRate/to`` into its ``ExchangeRate/from``.
    public let inverted: Bool

    public init(rate: ExchangeRate, inverted: Bool) {
        self.rate = rate
        self.inverted = inverted
    }

    /// The currency this step converts from.
    public var source: Currency { inverted ? rate.to : rate.from }
    /// The currency this step converts into.
    public var target: Currency { inverted ? rate.from : rate.to }

    /// The rate as stored and its date, and `inverted` when it is used backwards: `1 USD = 0.92 EUR on
    /// 2026-12-04` or `1 EUR = 1.0834 USD on 2026-12-04, inverted`.
    public var description: String {
        "1 \(rate.from.code) = \(rate.rate) \(rate.to.code) on \(rate.date)" + (inverted ? ", inverted" : "")
    }
}

/// How an amount of one currency becomes an amount of another on a day (``RateTable/path(on:from:to:)``): no
/// step for a currency into itself, one rate (direct or inverted), or two through the ledger's currency.
public struct ConversionPath: Hashable, Sendable, CustomStringConvertible {
    /// The currency converted from.
    public let from: Currency
    /// The currency converted into.
    public let to: Currency
    /// The rates used in order (empty: the identity); each step's target is the next one's source.
    public let steps: [ConversionStep]
    /// The product of the steps' numerators and of 10^(to's minor units − from's) when positive; below 10^34.
    let numerator: UInt128
    /// The product of the steps' denominators and of 10^(from's minor units − to's) when positive; below 10^34.
    let denominator: UInt128

    /// The path through `steps` from `from` to `to`.
    /// - Precondition: the steps chain from `from` to `to` and there are at most two (``RateTable`` builds paths
    ///   only so; at most two steps keep the fraction within the 256 bits ``Conversion/convert(_:along:)`` uses).
    public init(from: Currency, to: Currency, steps: [ConversionStep]) {
        precondition(steps.count <= 2 && (steps.first?.source ?? from) == from && (steps.last?.target ?? to) == to
                     && zip(steps, steps.dropFirst()).allSatisfy { $0.target == $1.source } && (!steps.isEmpty || from == to),
                     "a conversion path is a chain of at most two rates from its source to its target")
        self.from = from
        self.to = to
        self.steps = steps
        var numerator: UInt128 = 1, denominator: UInt128 = 1
        for step in steps {
            let mantissa = UInt128(step.rate.rate.mantissa), tens = Conversion.power(ofTen: step.rate.rate.scale)
            numerator *= step.inverted ? tens : mantissa
            denominator *= step.inverted ? mantissa : tens
        }
        let digits = to.minorUnits - from.minorUnits
        if digits > 0 { numerator *= Conversion.power(ofTen: digits) } else { denominator *= Conversion.power(ofTen: -digits) }
        self.numerator = numerator
        self.denominator = denominator
    }

    /// The identity of `currency`: no rate, the amount as it is.
    public static func identity(_ currency: Currency) -> ConversionPath { ConversionPath(from: currency, to: currency, steps: []) }

    /// Whether no rate is used (a currency into itself).
    public var isIdentity: Bool { steps.isEmpty }

    /// The steps joined with `; ` (`identity` for none).
    public var description: String { steps.isEmpty ? "identity" : steps.map(\.description).joined(separator: "; ") }
}

/// The outcome of converting one amount with a ``RateTable``.
public enum ConversionOutcome: Hashable, Sendable {
    /// The amount in the target's minor units, and the rates that made it.
    case converted(Int64, ConversionPath)
    /// No rate (direct, inverse, or through the ledger's currency) dated on or before the day.
    case noRate
    /// The result's magnitude exceeds ``ExpenseRules/maximumAmount``.
    case overflow(ConversionPath)
}
