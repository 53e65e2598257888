import ExpenseCore
import Foundation

/// Writes compact JSON straight into a byte buffer: no intermediate ``JSONValue``, no `String` building.
///
/// Commas are placed automatically: call ``key(_:)`` before each member value inside an object, and the
/// value methods in order inside an array.
///
///     var writer = JSONWriter()
///     writer.object { writer in
///         writer.key("cursor"); writer.int(5)
///     }
///     // writer.bytes == Array(#"{"cursor":5}"#.utf8)
///
/// Strings are escaped so that the output never holds a raw control character (so never a raw newline):
/// `\"`, `\\`, `\n`, `\r`, `\t`, and `\u00XX` for every other byte below 0x20. Everything else, non-ASCII
/// included, is written as UTF-8.
public struct JSONWriter: Sendable {
    /// The bytes written so far.
    public var bytes: [UInt8]
    /// Whether the next value or key inside the current container needs a comma first (internal, not private:
    /// the indented layout in `JSONWriter+Pretty.swift` places its own commas).
    var needsComma = false

    /// A writer with an empty buffer of `capacity` bytes reserved.
    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// A writer appending to existing bytes (a response prefix already written).
    public init(appendingTo bytes: [UInt8]) {
        self.bytes = bytes
    }

    @inline(__always)
    mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    /// Writes a fixed fragment such as the response envelope's `{"jsonrpc":"2.0","id":`; the value written
    /// next gets no comma before it (the fragment ends where a value starts).
    public mutating func raw(_ text: StaticString) {
        literal(text)
        needsComma = false
    }

    @inline(__always)
    private mutating func literal(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    // MARK: Containers

    /// Opens an object; pair with ``endObject()``.
    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Closes an object.
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Opens an array; pair with ``endArray()``.
    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Closes an array.
    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes an object whose members `body` writes.
    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        beginObject()
        body(&self)
        endObject()
    }

    /// Writes an array whose elements `body` writes.
    public mutating func array(_ body: (inout JSONWriter) -> Void) {
        beginArray()
        body(&self)
        endArray()
    }

    /// Writes a member name; the next value written is its value.
    public mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    // MARK: Scalars

    /// Writes `null`.
    public mutating func null() {
        separate()
        literal("null")
    }

    /// Writes `true` or `false`.
    public mutating func bool(_ value: Bool) {
        separate()
        if value { literal("true") } else { literal("false") }
    }

    /// Writes an integer in decimal.
    public mutating func int(_ value: Int) { int64(Int64(value)) }

    /// Writes an integer in decimal, without going through `String`.
    public mutating func int64(_ value: Int64) {
        separate()
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0) // 24 bytes of scratch; Int64 needs at most 20 digits.
        withUnsafeMutableBytes(of: &digits) { scratch in
            var position = scratch.count
            repeat {
                position -= 1
                scratch[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            // As a buffer, not a slice of one: a slice goes through the generic element-by-element copy.
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[position...]))
        }
    }

    /// Writes a number exactly as its text (already checked by the parser or made from an integer).
    public mutating func number(_ value: JSONNumber) {
        separate()
        bytes.append(contentsOf: value.text.utf8)
    }

    /// Writes a string, escaped.
    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { string(utf8: $0) }
    }

    /// Writes a string given as its UTF-8 bytes (already valid UTF-8, as a `String`'s are), escaped like
    /// ``string(_:)``.
    public mutating func string(utf8: UnsafeBufferPointer<UInt8>) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
            runStart = index + 1
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            default:
                let hex: StaticString = "0123456789abcdef"
                bytes.append(UInt8(ascii: "u"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(hex.utf8Start[Int(byte >> 4)])
                bytes.append(hex.utf8Start[Int(byte & 0xF)])
            }
        }
        if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes a UUID as lower-case text, the way ids are written everywhere on the wire.
    public mutating func uuid(_ value: UUID) {
        separate()
        var scratch: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)  // 40 bytes for `"` + 36 + `"`
        withUnsafeMutableBytes(of: &scratch) { out in
            out[0] = UInt8(ascii: "\"")
            UUIDText.write(value, into: out, at: 1)
            out[37] = UInt8(ascii: "\"")
            bytes.append(contentsOf: out[0...37])  // one append: pull pages write 10,000 ids
        }
    }

    /// Writes a day as the string `"YYYY-MM-DD"` without building a `String` (years are 1900 … 9999).
    public mutating func day(year: Int, month: Int, day: Int) {
        separate()
        var scratch: (UInt64, UInt64) = (0, 0)  // 16 bytes for the 12 of `"YYYY-MM-DD"`
        withUnsafeMutableBytes(of: &scratch) { out in
            out[0] = UInt8(ascii: "\"")
            Self.digits(year, width: 4, into: out, at: 1)
            out[5] = UInt8(ascii: "-")
            Self.digits(month, width: 2, into: out, at: 6)
            out[8] = UInt8(ascii: "-")
            Self.digits(day, width: 2, into: out, at: 9)
            out[11] = UInt8(ascii: "\"")
            bytes.append(contentsOf: out[0..<12])
        }
    }

    /// Writes `value` as exactly `width` decimal digits (zero-padded) at `offset`.
    private static func digits(_ value: Int, width: Int, into out: UnsafeMutableRawBufferPointer, at offset: Int) {
        var rest = value
        for position in stride(from: offset + width - 1, through: offset, by: -1) {
            out[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
    }

    /// Writes any JSON value; object keys in byte order of their UTF-8, so equal values give equal bytes.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .number(let number): self.number(number)
        case .string(let text): string(text)
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case .object(let members):
            beginObject()
            for name in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                key(name)
                if let member = members[name] { self.value(member) }
            }
            endObject()
        }
    }

    // MARK: Members (key + value in one call)

    /// Writes `"name":<string>`.
    public mutating func member(_ name: String, _ value: String) { key(name); string(value) }
    /// Writes `"name":<integer>`.
    public mutating func member(_ name: String, _ value: Int64) { key(name); int64(value) }
    /// Writes `"name":<bool>`.
    public mutating func member(_ name: String, _ value: Bool) { key(name); bool(value) }
    /// Writes `"name":<value>`.
    public mutating func member(_ name: String, _ value: JSONValue) { key(name); self.value(value) }
}

extension JSONWriter {
    /// `text` as a JSON string literal, quotes included: the one string escaping of the project, for code that
    /// lays out its own JSON text (the CLI's streamed listings, the bench's report).
    public static func quoted(_ text: String) -> String {
        var writer = JSONWriter(capacity: text.utf8.count + 2)
        writer.string(text)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
