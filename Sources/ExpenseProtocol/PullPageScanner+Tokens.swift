import ExpenseCore
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The tokens of ``PullPageScanner``: member names, ids, strings, integers, booleans and the fixed fragments of
/// the daemon's layout, each read in place from the line's bytes.
extension PullPageScanner {
    /// The member names this scanner knows; any other name is `nil` (and so the general path).
    enum Name: Equatable {
        case jsonrpc, id, result, changes, cursor, more, deleted, seq, version
        /// An expense field: its index in ``ExpenseFields/all``.
        case field(Int)
    }

    /// `"name"` then `:`. A name with an escape or a byte outside printable ASCII is not one of ours as written.
    mutating func memberName() -> Name? {
        reader.skipWhitespace()
        guard peek == UInt8(ascii: "\"") else { return nil }
        let bytes = reader.bytes
        reader.index += 1
        let start = reader.index
        while reader.index < bytes.count, bytes[reader.index] != UInt8(ascii: "\"") {
            guard bytes[reader.index] >= 0x20, bytes[reader.index] < 0x80, bytes[reader.index] != UInt8(ascii: "\\") else {
                return nil
            }
            reader.index += 1
        }
        guard reader.index < bytes.count else { return nil }
        let name = UnsafeBufferPointer(rebasing: bytes[start..<reader.index])
        reader.index += 1
        guard consume(UInt8(ascii: ":")) else { return nil }
        reader.skipWhitespace()
        return Self.name(name)
    }

    /// The one candidate a name's length and first byte allow, then compared in full; any other name is looked
    /// up among the expense fields (``ExpenseFields/slot(named:)-(UnsafeBufferPointer<UInt8>)``).
    private static func name(_ bytes: UnsafeBufferPointer<UInt8>) -> Name? {
        guard bytes.count >= 2 else { return nil }
        let candidate: (text: StaticString, name: Name)
        switch (bytes.count, bytes[0]) {
        case (2, UInt8(ascii: "i")): candidate = ("id", .id)
        case (7, UInt8(ascii: "v")): candidate = ("version", .version)
        case (3, UInt8(ascii: "s")): candidate = ("seq", .seq)
        case (7, UInt8(ascii: "d")): candidate = ("deleted", .deleted)
        case (7, UInt8(ascii: "c")): candidate = ("changes", .changes)
        case (6, UInt8(ascii: "c")): candidate = ("cursor", .cursor)
        case (4, UInt8(ascii: "m")): candidate = ("more", .more)
        case (7, UInt8(ascii: "j")): candidate = ("jsonrpc", .jsonrpc)
        case (6, UInt8(ascii: "r")): candidate = ("result", .result)
        default: return ExpenseFields.slot(named: bytes).map(Name.field)
        }
        // memcmp: the generic `elementsEqual` is not specialised here and cost more than the table walk it replaced.
        guard let start = bytes.baseAddress, memcmp(candidate.text.utf8Start, start, bytes.count) == 0 else {
            return ExpenseFields.slot(named: bytes).map(Name.field)
        }
        return candidate.name
    }

    /// An id value: a UUID in either case, read from the line's bytes when the string is written without
    /// escapes (as the daemon writes it), else through ``string()``; `nil` when it is not a UUID (the general
    /// path refuses it).
    mutating func uuid() -> UUID? {
        let bytes = reader.bytes
        let start = reader.index + 1
        if peek == UInt8(ascii: "\""), start + 36 < bytes.count, bytes[start + 36] == UInt8(ascii: "\"") {
            // A backslash or quote among the 36 bytes is not a hexadecimal digit: parse refuses it.
            guard let id = UUIDText.parse(utf8: UnsafeBufferPointer(rebasing: bytes[start..<(start + 36)])) else { return nil }
            reader.index = start + 37
            return id
        }
        guard let text = string() else { return nil }
        return UUIDText.parse(text)
    }

    /// A string value, read by the general parser's string reader.
    mutating func string() -> String? {
        guard peek == UInt8(ascii: "\"") else { return nil }
        return try? reader.parseString()
    }

    /// The text of an integer exactly as ``JSONNumber/int64`` would accept it (`-`? then `0` or a non-zero
    /// digit and digits), fitting `Int64`; a fraction, an exponent or anything else is `nil`.
    mutating func integerText() -> String? {
        let start = reader.index
        guard integer(skippingWhitespace: false) != nil else { return nil }
        let text = String(decoding: UnsafeBufferPointer(rebasing: reader.bytes[start..<reader.index]), as: UTF8.self)
        reader.skipWhitespace()
        return text
    }

    /// See ``integerText()``.
    mutating func integer(skippingWhitespace: Bool = true) -> Int64? {
        let bytes = reader.bytes
        var index = reader.index
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let first = index
        // Nineteen digits always fit a UInt64; a twentieth means a magnitude past Int64 (or a leading zero),
        // either way not an Int64 as JSONNumber reads one.
        var magnitude: UInt64 = 0
        while index < bytes.count, index - first < 19, case let digit = bytes[index] &- UInt8(ascii: "0"), digit < 10 {
            magnitude = magnitude &* 10 &+ UInt64(digit)
            index += 1
        }
        let digits = index - first
        guard digits > 0, digits == 1 || bytes[first] != UInt8(ascii: "0") else { return nil }
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        let value: Int64
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            value = magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        } else {
            guard magnitude <= UInt64(Int64.max) else { return nil }
            value = Int64(magnitude)
        }
        reader.index = index
        if skippingWhitespace { reader.skipWhitespace() }
        return value
    }

    /// `true` or `false`.
    mutating func boolean(skippingWhitespace: Bool = true) -> Bool? {
        if fragment("true") {
            if skippingWhitespace { reader.skipWhitespace() }
            return true
        }
        if fragment("false") {
            if skippingWhitespace { reader.skipWhitespace() }
            return false
        }
        return nil
    }

    // `fragment`, `peek` and `consume` are internal, not private, only so PullPageScanner.swift reaches them.

    /// Takes `text` if the bytes at the reader are exactly it (no whitespace skipped on either side). Compared
    /// eight bytes at a time in place (a record's ten fragments are 1 to 12 bytes; a `memcmp` call cost more).
    @inline(__always)
    mutating func fragment(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard reader.index + count <= reader.bytes.count, let base = reader.bytes.baseAddress else { return false }
        let here = UnsafeRawPointer(base + reader.index), expected = UnsafeRawPointer(text.utf8Start)
        var offset = 0
        while offset + 8 <= count {
            guard here.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    == expected.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else { return false }
            offset += 8
        }
        if offset + 4 <= count {
            guard here.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
                    == expected.loadUnaligned(fromByteOffset: offset, as: UInt32.self) else { return false }
            offset += 4
        }
        while offset < count {
            guard here.load(fromByteOffset: offset, as: UInt8.self) == expected.load(fromByteOffset: offset, as: UInt8.self) else {
                return false
            }
            offset += 1
        }
        reader.index += count
        return true
    }

    var peek: UInt8? { reader.index < reader.bytes.count ? reader.bytes[reader.index] : nil }

    /// Skips whitespace, then takes `byte` if it is next. (Never whitespace after it: `byte` may open a string.)
    mutating func consume(_ byte: UInt8) -> Bool {
        reader.skipWhitespace()
        guard peek == byte else { return false }
        reader.index += 1
        return true
    }
}
