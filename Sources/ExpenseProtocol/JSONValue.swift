/// A parsed JSON value. Numbers keep their exact text, so nothing is lost to floating point and an amount
/// like `12.5` or `1e3` can be refused with the field's own reason instead of being rounded.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

/// A JSON number as written on the wire.
public struct JSONNumber: Hashable, Sendable {
    /// The exact text, such as `1250`, `-3`, `12.5` or `1e3`.
    public let text: String

    public init(text: String) { self.text = text }

    public init(_ value: Int64) { self.text = String(value) }

    /// The value when the text is a plain integer (optional `-`, digits, no fraction or exponent) that fits
    /// in `Int64`; `nil` otherwise (so `12.0` and `1e3` are not integers).
    public var int64: Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || ($0 >= 48 && $0 <= 57) }) else { return nil }
        return Int64(text)
    }
}
