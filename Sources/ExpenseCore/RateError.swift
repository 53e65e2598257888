/// Why a text is not an exchange rate (``Rate``). Every case has the one stable code `invalid_rate` (as every
/// bad amount is `invalid_amount`); the case says why, and ``message`` says it to a person.
public enum RateError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The text is empty.
    case empty
    /// Not a plain decimal such as `1.0834`: a sign, a space, a comma, a second point, or a point without
    /// digits on both sides.
    case notDecimal(String)
    /// The rate is negative.
    case negative(String)
    /// The rate is zero.
    case zero
    /// Written with an exponent (`1e3`): rates are plain decimals.
    case exponent(String)
    /// More than 12 significant digits.
    case tooManySignificantDigits(String)
    /// More than 15 digits after the decimal point.
    case tooManyDecimals(String)
    /// 10^12 or more.
    case tooLarge(String)

    /// The stable snake_case code: `invalid_rate` for every case.
    public var code: String { "invalid_rate" }

    /// A sentence for a person, quoting the text (escaped, ``DisplayText``).
    public var message: String {
        switch self {
        case .empty: "the rate is empty"
        case .notDecimal(let text): "\(DisplayText.quoted(text)) is not a plain decimal rate such as 1.0834 (no signs, spaces or commas)"
        case .negative(let text): "\(DisplayText.quoted(text)) is negative; a rate is positive"
        case .zero: "a rate of zero converts nothing; a rate is positive"
        case .exponent(let text): "\(DisplayText.quoted(text)) has an exponent; write the rate as a plain decimal such as 0.000123"
        case .tooManySignificantDigits(let text):
            "\(DisplayText.quoted(text)) has more than \(Rate.maximumSignificantDigits) significant digits"
        case .tooManyDecimals(let text): "\(DisplayText.quoted(text)) has more than \(Rate.maximumScale) digits after the point"
        case .tooLarge(let text): "\(DisplayText.quoted(text)) is too large; a rate is below 1000000000000"
        }
    }

    public var description: String { "\(code): \(message)" }
}
