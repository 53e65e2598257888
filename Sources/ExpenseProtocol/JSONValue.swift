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
        var text = text
        return text.withUTF8(Self.int64)
    }

    /// `bytes` as an `Int64` when they are an optional `-` and then one or more ASCII digits whose value fits; in
    /// one pass, summing negatively so that `Int64.min` fits too. Every mutation's `mutationId`, `baseVersion` and
    /// `amount` is read here.
    private static func int64(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        let negative = bytes.first == UInt8(ascii: "-")
        var index = negative ? 1 : 0
        guard index < bytes.count else { return nil }
        var value: Int64 = 0
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, underflowed) = shifted.subtractingReportingOverflow(Int64(digit))
            guard !overflowed, !underflowed else { return nil }
            value = sum
            index += 1
        }
        if negative { return value }
        return value == .min ? nil : -value
    }
}

extension JSONValue {
    /// Parses one JSON text. - Throws: ``JSONParseError``.
    public init(parsing bytes: [UInt8]) throws(JSONParseError) {
        self = try JSONParser.parse(bytes)
    }

    /// Compact JSON bytes, object keys sorted, no trailing newline.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.value(self)
        return writer.bytes
    }

    /// Compact JSON text, object keys sorted.
    public var jsonText: String { String(decoding: jsonBytes, as: UTF8.self) }

    /// The member `key` when this is an object holding it.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The members when this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The text when this is a string.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The flag when this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// The value when this is a plain integer number that fits in `Int64` (so not `1.0` nor `1e3`).
    public var int64Value: Int64? {
        if case .number(let number) = self { return number.int64 }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .number(JSONNumber(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
    /// - Precondition: no key twice (a programmer error in a literal).
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { first, _ in
            preconditionFailure("duplicate key in a JSONValue literal")
        }))
    }
}
