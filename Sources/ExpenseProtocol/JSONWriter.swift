import ExpenseCore
import FoundationEssentials

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

    /// Writes a fixed fragment made once at run time (a member's opening built from a declared name); as
    /// ``raw(_:)-(StaticString)``, the value written next gets no comma before it.
    public mutating func raw(bytes fragment: [UInt8]) {
        bytes.append(contentsOf: fragment)
        needsComma = false
    }

    /// ``raw(bytes:)-([UInt8])`` of a fragment held elsewhere.
    public mutating func raw(bytes fragment: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: fragment)
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
        append(atMost: 20) { $0.int64(value) }
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
    /// ``string(_:)`` (``JSONByteCursor/string(utf8:)``).
    public mutating func string(utf8: UnsafeBufferPointer<UInt8>) {
        separate()
        append(atMost: JSONByteCursor.maximumStringBytes(utf8.count)) { $0.string(utf8: utf8) }
    }

    /// Writes a UUID as lower-case text, the way ids are written everywhere on the wire.
    public mutating func uuid(_ value: UUID) {
        separate()
        append(atMost: 38) { $0.uuid(value) }
    }

    /// Writes a day as the string `"YYYY-MM-DD"` without building a `String` (years are 1900 … 9999).
    public mutating func day(year: Int, month: Int, day: Int) {
        separate()
        append(atMost: 12) { $0.day(year: year, month: month, day: day) }
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
