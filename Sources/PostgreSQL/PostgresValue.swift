/// A statement parameter: sent in PostgreSQL's text format (the server casts it to the column's type), or
/// ``binary(_:type:)`` in its binary format with its type.
public enum PostgresValue: Sendable, Hashable {
    case null
    case text(String)
    case integer(Int64)
    case bool(Bool)
    /// A value in PostgreSQL's binary format and the OID of its type (``PostgresBinaryArray/value``).
    case binary([UInt8], type: UInt32)

    /// The text form libpq sends, `nil` for NULL (and for ``binary(_:type:)``, which is not sent as text).
    var textForm: String? {
        switch self {
        case .null, .binary: nil
        case .text(let text): text
        case .integer(let number): String(number)
        case .bool(let flag): flag ? "t" : "f"
        }
    }
}

extension PostgresValue {
    /// A one-dimensional array in PostgreSQL's text form (`{"a","b",NULL,7}`), for `unnest($1::text[])`: many
    /// rows in one statement and one round trip. Text is double-quoted with `"` and `\` escaped, so any text
    /// (an empty one, `NULL`, braces, commas, spaces) reads back as itself; integers and booleans need no
    /// quotes. Built as UTF-8 bytes in one buffer: a 500-mutation push sends thousands of elements.
    public static func array(_ elements: [PostgresValue]) -> PostgresValue {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(2 + elements.count * 8)
        bytes.append(UInt8(ascii: "{"))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            switch element {
            case .null: bytes.append(contentsOf: "NULL".utf8)
            case .integer(let number): appendDecimal(number, to: &bytes)
            case .bool(let flag): bytes.append(flag ? UInt8(ascii: "t") : UInt8(ascii: "f"))
            case .text(let text): appendQuoted(text, to: &bytes)
            case .binary: preconditionFailure("a binary value has no text form inside a text array")
            }
        }
        bytes.append(UInt8(ascii: "}"))
        return .text(String(decoding: bytes, as: UTF8.self))
    }

    /// `number` in decimal, as `String(number)` writes it.
    static func appendDecimal(_ number: Int64, to bytes: inout [UInt8]) {
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // up to 20 digits, reversed, one per byte
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for position in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[position]) }
        }
    }

    /// `text` between double quotes, each `"` and `\` preceded by a backslash.
    static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
            bytes.append(byte)
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
