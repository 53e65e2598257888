/// An exchange rate's number: a positive decimal of at most 12 significant digits, held exactly as
/// ``mantissa`` × 10^−``scale``. It never touches floating point: a conversion multiplies by it as the fraction
/// ``mantissa`` / 10^``scale`` (``Conversion``).
///
/// - Important: the value is normalized (no trailing zero of the mantissa while ``scale`` > 0), so one value has
///   one representation: `1.50` and `1.5` are equal, hash alike and have one ``description``.
public struct Rate: Hashable, Sendable, CustomStringConvertible {
    /// The digits, 1 ..< 10^12; never a multiple of 10 while ``scale`` > 0.
    public let mantissa: Int64
    /// Digits after the decimal point, 0 … 15.
    public let scale: Int

    /// The most significant digits a rate has.
    public static let maximumSignificantDigits = 12
    /// The most digits after the decimal point a rate is written with.
    public static let maximumScale = 15
    /// 10^12: every mantissa is below it, and so is every rate.
    public static let mantissaLimit: Int64 = 1_000_000_000_000

    /// The rate `mantissa` × 10^−`scale`, normalized.
    /// - Throws: ``RateError`` when the value is not positive, has more than 15 digits after the point or more
    ///   than 12 significant digits, or is 10^12 or more.
    public init(mantissa: Int64, scale: Int) throws(RateError) {
        let shown = "\(mantissa)e-\(scale)"
        guard mantissa > 0 else { throw mantissa == 0 ? .zero : .negative(shown) }
        guard (0...Self.maximumScale).contains(scale) else { throw .tooManyDecimals(shown) }
        var mantissa = mantissa, scale = scale
        while scale > 0 && mantissa % 10 == 0 {
            mantissa /= 10
            scale -= 1
        }
        guard mantissa < Self.mantissaLimit else { throw scale == 0 ? .tooLarge(shown) : .tooManySignificantDigits(shown) }
        self.mantissa = mantissa
        self.scale = scale
    }

    /// Parses a plain decimal such as `1.0834`, `0.000123`, `25000` or `157.2`.
    ///
    /// Strict, as amounts are (``Money/parse(_:currency:)``): digits with at most one `.` that has digits on both
    /// sides; no sign, exponent, space or thousands separator. Leading zeros and trailing zeros after the point
    /// are allowed and dropped.
    /// - Throws: ``RateError`` naming what was wrong.
    public init(_ text: String) throws(RateError) {
        var whole: [UInt8] = [], fraction: [UInt8] = []
        var seenPoint = false
        guard !text.isEmpty else { throw .empty }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if seenPoint { fraction.append(byte) } else { whole.append(byte) }
            case UInt8(ascii: ".") where !seenPoint: seenPoint = true
            case UInt8(ascii: "-"): throw .negative(text)
            case UInt8(ascii: "e"), UInt8(ascii: "E"): throw .exponent(text)
            default: throw .notDecimal(text)
            }
        }
        guard !whole.isEmpty, !(seenPoint && fraction.isEmpty) else { throw .notDecimal(text) }
        guard fraction.count <= Self.maximumScale else { throw .tooManyDecimals(text) }
        while fraction.last == UInt8(ascii: "0") { fraction.removeLast() }
        let integerDigits = whole.drop { $0 == UInt8(ascii: "0") }
        let significant = (whole + fraction).drop { $0 == UInt8(ascii: "0") }
        guard !significant.isEmpty else { throw .zero }
        guard integerDigits.count <= Self.maximumSignificantDigits else { throw .tooLarge(text) }
        guard significant.count <= Self.maximumSignificantDigits else { throw .tooManySignificantDigits(text) }
        // At most 12 digits: no Int64 arithmetic here can overflow.
        var mantissa: Int64 = 0
        for digit in significant { mantissa = mantissa * 10 + Int64(digit - UInt8(ascii: "0")) }
        self.mantissa = mantissa
        self.scale = fraction.count
    }

    /// The canonical text: no leading zeros, no trailing zeros after the point (`1.5`, `0.000123`, `100`).
    public var description: String {
        var digits = String(mantissa)
        guard scale > 0 else { return digits }
        if digits.count <= scale { digits = String(repeating: "0", count: scale + 1 - digits.count) + digits }
        var text = digits
        text.insert(".", at: text.index(text.endIndex, offsetBy: -scale))
        return text
    }
}
