/// Exact conversion between a person's decimal text and whole minor units. Money never touches floating point.
public enum Money {
    /// Parses a plain positive decimal such as `12`, `12.5` or `12.50` into minor units of `currency`.
    ///
    /// Strict on purpose: no sign, no exponent, no thousands separator, no comma as decimal mark, no spaces,
    /// at most the currency's number of decimal places, and a result from 1 to ``ExpenseRules/maximumAmount``.
    /// - Throws: ``ValidationError/invalidAmount(_:)`` naming what was wrong.
    public static func parse(_ text: String, currency: Currency) throws -> Int64 {
        // The input, quoted for messages: never its raw control characters, never more than 40 characters.
        let shown = ValidationError.quoted(text)
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw ValidationError.invalidAmount("the amount is empty") }
        var whole: [UInt8] = []
        var fraction: [UInt8] = []
        var seenPoint = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if seenPoint { fraction.append(byte) } else { whole.append(byte) }
            case UInt8(ascii: ".") where !seenPoint:
                seenPoint = true
            case UInt8(ascii: "-"):
                throw ValidationError.invalidAmount("\(shown) is negative; amounts are positive")
            default:
                throw ValidationError.invalidAmount(
                    "\(shown) is not a plain decimal number such as 12.50 (no signs, exponents, spaces or commas)")
            }
        }
        guard !whole.isEmpty, !(seenPoint && fraction.isEmpty) else {
            throw ValidationError.invalidAmount("\(shown) is not a plain decimal number such as 12.50")
        }
        guard fraction.count <= currency.minorUnits else {
            throw ValidationError.invalidAmount(currency.minorUnits == 0
                ? "\(currency.code) has no minor unit, so \(shown) must be a whole number"
                : "\(currency.code) has \(currency.minorUnits) decimal places, \(shown) has \(fraction.count)")
        }
        let padded = fraction + Array(repeating: UInt8(ascii: "0"), count: currency.minorUnits - fraction.count)
        var value: Int64 = 0
        for byte in whole + padded {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2, sum <= ExpenseRules.maximumAmount else {
                throw ValidationError.invalidAmount("\(shown) is larger than the largest amount allowed")
            }
            value = sum
        }
        try checkRange(value)
        return value
    }

    /// Checks that a count of minor units lies in 1 … 2^53−1.
    /// - Throws: ``ValidationError/invalidAmount(_:)``.
    public static func checkRange(_ minorUnits: Int64) throws {
        guard minorUnits >= 1 else {
            throw ValidationError.invalidAmount("the amount must be greater than zero")
        }
        guard minorUnits <= ExpenseRules.maximumAmount else {
            throw ValidationError.invalidAmount("\(minorUnits) minor units is above the largest amount, \(ExpenseRules.maximumAmount)")
        }
    }

    /// Formats minor units exactly: `format(1250, .usd)` is `12.50`; with `includeCode`, `12.50 USD`.
    /// Works for any `Int64`, negative included (differences and totals).
    public static func format(_ minorUnits: Int64, currency: Currency, includeCode: Bool = false) -> String {
        let negative = minorUnits < 0
        // magnitude avoids trapping on Int64.min
        var digits = String(minorUnits.magnitude)
        var text: String
        if currency.minorUnits > 0 {
            if digits.count <= currency.minorUnits {
                digits = String(repeating: "0", count: currency.minorUnits - digits.count + 1) + digits
            }
            let split = digits.index(digits.endIndex, offsetBy: -currency.minorUnits)
            text = digits[..<split] + "." + digits[split...]
        } else {
            text = digits
        }
        if negative { text = "-" + text }
        return includeCode ? text + " " + currency.code : text
    }
}
