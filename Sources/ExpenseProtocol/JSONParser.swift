/// A strict, allocation-light RFC 8259 parser working directly on UTF-8 bytes.
///
/// Limits: nesting depth ``maximumDepth``, number text ``maximumNumberLength`` characters; duplicate object keys
/// are an error; a byte order mark is refused (RFC 8259 §8.1 forbids sending one). Strings are validated as
/// UTF-8 byte by byte, so invalid UTF-8 is reported, never replaced.
public enum JSONParser {
    /// The deepest nesting of arrays and objects accepted. Deeper input is ``JSONParseError/nestingTooDeep``,
    /// never a stack overflow.
    public static let maximumDepth = 64
    /// The longest number text accepted; no wire number needs more, and longer ones are refused before any
    /// allocation.
    public static let maximumNumberLength = 1000

    /// Parses one complete JSON text.
    /// - Throws: ``JSONParseError``.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) -> JSONValue in try parse(buffer) }
        }
        return try result.get()
    }

    /// Parses one complete JSON text from a slice of a larger buffer (a line inside a read buffer).
    /// - Throws: ``JSONParseError``.
    public static func parse(_ bytes: ArraySlice<UInt8>) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) -> JSONValue in try parse(buffer) }
        }
        return try result.get()
    }

    /// Parses one complete JSON text from raw memory the caller keeps alive for the duration of the call.
    /// - Throws: ``JSONParseError``.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        try parse(bytes.bindMemory(to: UInt8.self))
    }

    /// Parses one complete JSON text from a buffer of bytes.
    /// - Throws: ``JSONParseError``.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        var reader = JSONReader(bytes: bytes)
        reader.skipWhitespace()
        guard reader.index < bytes.count else { throw .emptyInput }
        let value = try reader.parseValue()
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw .trailingCharacters }
        // A duplicate key is reported only once the whole text is known to be JSON, so a line that is both
        // malformed and has a duplicate key is a parse error wherever the two problems stand.
        if let key = reader.firstDuplicateKey { throw .duplicateKey(key) }
        return value
    }
}

/// The parser's cursor over one buffer. Recursion is bounded by ``JSONParser/maximumDepth``.
struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0
    /// The first key seen twice in one object, if any; `JSONParser.parse` reports it once the text is complete.
    var firstDuplicateKey: String?

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw .unexpectedEnd }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw .unexpectedCharacter
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        let text = literal.utf8Start
        for offset in 0..<count {
            guard index + offset < bytes.count else { throw .unexpectedEnd }
            guard bytes[index + offset] == text[offset] else { throw .unexpectedCharacter }
        }
        index += count
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        guard depth <= JSONParser.maximumDepth else { throw .nestingTooDeep }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var members = [String: JSONValue](minimumCapacity: 8)
        skipWhitespace()
        guard index < bytes.count else { throw .unexpectedEnd }
        if bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            guard index < bytes.count else { throw .unexpectedEnd }
            guard bytes[index] == UInt8(ascii: "\"") else { throw .unexpectedCharacter }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count else { throw .unexpectedEnd }
            guard bytes[index] == UInt8(ascii: ":") else { throw .unexpectedCharacter }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            if members.updateValue(value, forKey: key) != nil, firstDuplicateKey == nil { firstDuplicateKey = key }
            skipWhitespace()
            guard index < bytes.count else { throw .unexpectedEnd }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(members)
            default:
                throw .unexpectedCharacter
            }
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        guard index < bytes.count else { throw .unexpectedEnd }
        if bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw .unexpectedEnd }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(elements)
            default:
                throw .unexpectedCharacter
            }
        }
    }

    /// Parses a number, keeping its exact text; the grammar is checked, the value is not computed.
    private mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw .unexpectedEnd }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if isDigit(bytes[index]) {
            skipDigits()
        } else {
            throw .invalidNumber
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count else { throw .unexpectedEnd }
            guard isDigit(bytes[index]) else { throw .invalidNumber }
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count else { throw .unexpectedEnd }
            guard isDigit(bytes[index]) else { throw .invalidNumber }
            skipDigits()
        }
        guard index - start <= JSONParser.maximumNumberLength else { throw .numberTooLong }
        return JSONNumber(text: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    /// Parses a string starting at its opening quote. Plain ASCII without escapes (almost every key and
    /// value on this protocol) is copied once; anything else goes through the validating slow path.
    mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
            index += 1
        }
        guard index < bytes.count else { throw .unexpectedEnd }
        var scratch: [UInt8] = []
        scratch.reserveCapacity(index - start + 16)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: scratch, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &scratch)
            case 0..<0x20:
                throw .controlCharacterInString
            case 0x20..<0x80:
                scratch.append(byte)
                index += 1
            default:
                try copyUTF8Sequence(into: &scratch)
            }
        }
        throw .unexpectedEnd
    }

    /// Validates one multi-byte UTF-8 sequence (RFC 3629 table 3-7: no overlong forms, no surrogates,
    /// nothing above U+10FFFF) and copies it.
    private mutating func copyUTF8Sequence(into scratch: inout [UInt8]) throws(JSONParseError) {
        let lead = bytes[index]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: throw .invalidUTF8
        }
        guard index + length <= bytes.count else {
            // A truncated sequence at the end of the input is still invalid UTF-8, whatever follows.
            throw .invalidUTF8
        }
        let second = bytes[index + 1]
        guard second >= low, second <= high else { throw .invalidUTF8 }
        for offset in 2..<max(2, length) {
            guard bytes[index + offset] & 0xC0 == 0x80 else { throw .invalidUTF8 }
        }
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<(index + length)]))
        index += length
    }

    private mutating func parseEscape(into scratch: inout [UInt8]) throws(JSONParseError) {
        index += 1
        guard index < bytes.count else { throw .unexpectedEnd }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try parseHex4()
            var scalarValue = UInt32(unit)
            if (0xD800...0xDBFF).contains(unit) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw .loneSurrogate
                }
                index += 2
                let lowUnit = try parseHex4()
                guard (0xDC00...0xDFFF).contains(lowUnit) else { throw .loneSurrogate }
                scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(lowUnit) - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(unit) {
                throw .loneSurrogate
            }
            appendUTF8(scalarValue, to: &scratch)
        default:
            throw .invalidEscape
        }
    }

    /// Appends a Unicode scalar value (never a surrogate: the caller has combined or refused those) as UTF-8.
    private func appendUTF8(_ value: UInt32, to scratch: inout [UInt8]) {
        switch value {
        case 0..<0x80:
            scratch.append(UInt8(value))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | value >> 6))
            scratch.append(UInt8(0x80 | value & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | value >> 12))
            scratch.append(UInt8(0x80 | value >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | value & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | value >> 18))
            scratch.append(UInt8(0x80 | value >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | value >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | value & 0x3F))
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw .unexpectedEnd }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw .invalidEscape
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }
}
