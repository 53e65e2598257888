/// An amount a rule compares with (`--amount-from 10`, `--match amount=12.50`, `--part food=9.90`): a plain
/// decimal of at most 14 digits before the point and 4 after, kept exactly in ten-thousandths so that it
/// compares with an amount of any currency (none has more than 4 decimals).
public struct RuleAmount: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The value in ten-thousandths.
    public let tenThousandths: Int64

    /// Reads `12`, `12.5`, `0.0001`; `nil` for anything else (a sign, a comma, more digits).
    public init?(_ text: String) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(pieces.count), let whole = pieces.first, (1...14).contains(whole.count),
              whole.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        var fraction = pieces.count == 2 ? String(pieces[1]) : ""
        guard pieces.count == 1 || (1...4).contains(fraction.count), fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return nil
        }
        fraction += String(repeating: "0", count: 4 - fraction.count)
        guard let units = Int64(whole + fraction) else { return nil }
        tenThousandths = units
    }

    /// The amount `minorUnits` of `currency` in ten-thousandths; `nil` beyond what a rule can name.
    public static func tenThousandths(of minorUnits: Int64, currency: Currency) -> Int64? {
        guard currency.minorUnits <= 4 else { return nil }
        var scale: Int64 = 1
        for _ in 0..<(4 - currency.minorUnits) { scale *= 10 }
        let (value, overflow) = minorUnits.multipliedReportingOverflow(by: scale)
        return overflow ? nil : value
    }

    /// The amount in minor units of `currency`; `nil` when it has more decimals than the currency.
    public func minorUnits(in currency: Currency) -> Int64? {
        guard currency.minorUnits <= 4 else { return nil }
        var scale: Int64 = 1
        for _ in 0..<(4 - currency.minorUnits) { scale *= 10 }
        return tenThousandths % scale == 0 ? tenThousandths / scale : nil
    }

    /// The shortest decimal: `12.5`, `12`.
    public var description: String {
        let whole = tenThousandths / 10_000
        var fraction = String(tenThousandths % 10_000)
        fraction = String(repeating: "0", count: 4 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? String(whole) : "\(whole).\(fraction)"
    }

    public static func < (lhs: RuleAmount, rhs: RuleAmount) -> Bool { lhs.tenThousandths < rhs.tenThousandths }
}
