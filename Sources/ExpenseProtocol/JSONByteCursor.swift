import ExpenseCore
import Foundation

/// Lays out JSON text at a raw pointer: the one implementation of ``JSONWriter``'s scalars (integers, strings
/// and their escaping, UUIDs, days), which the writer runs over room it reserved once
/// (``JSONWriter/append(atMost:_:)``) instead of appending to its array a few bytes at a time.
///
/// - Important: the caller guarantees the room: each method writes at most the bytes its documentation names
///   (``maximumStringBytes(_:)`` for a string), and nothing checks it.
struct JSONByteCursor {
    /// Where the next byte goes.
    private(set) var pointer: UnsafeMutablePointer<UInt8>
    private let start: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) {
        self.start = start
        pointer = start
    }

    /// The bytes written so far.
    var count: Int { pointer - start }

    /// The most bytes ``string(utf8:)`` writes for `count` bytes of text: every byte may become `\u00XX`, plus the quotes.
    static func maximumStringBytes(_ count: Int) -> Int { 2 + 6 * count }

    /// One byte.
    @inline(__always)
    mutating func byte(_ value: UInt8) {
        pointer.pointee = value
        pointer += 1
    }

    /// A fixed fragment, as it is.
    @inline(__always)
    mutating func raw(_ text: StaticString) {
        let count = text.utf8CodeUnitCount
        pointer.update(from: text.utf8Start, count: count)
        pointer += count
    }

    /// `true` or `false` (at most 5 bytes).
    mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    /// An integer in decimal (at most 20 bytes).
    mutating func int64(_ value: Int64) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        var position = pointer + digits
        pointer = position
        repeat {
            position -= 1
            position.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
    }

    /// A string given as valid UTF-8, quoted and escaped: `\"`, `\\`, `\n`, `\r`, `\t`, `\u00XX` for every other
    /// byte below 0x20; everything else as it is (at most ``maximumStringBytes(_:)`` bytes).
    mutating func string(utf8: UnsafeBufferPointer<UInt8>) {
        byte(UInt8(ascii: "\""))
        guard let base = utf8.baseAddress else {
            byte(UInt8(ascii: "\""))
            return
        }
        var runStart = 0
        for index in 0..<utf8.count {
            let value = base[index]
            guard value < 0x20 || value == UInt8(ascii: "\"") || value == UInt8(ascii: "\\") else { continue }
            copy(base + runStart, count: index - runStart)
            runStart = index + 1
            byte(UInt8(ascii: "\\"))
            switch value {
            case UInt8(ascii: "\""): byte(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): byte(UInt8(ascii: "\\"))
            case 0x0A: byte(UInt8(ascii: "n"))
            case 0x0D: byte(UInt8(ascii: "r"))
            case 0x09: byte(UInt8(ascii: "t"))
            default:
                let hex: StaticString = "0123456789abcdef"
                raw("u00")
                byte(hex.utf8Start[Int(value >> 4)])
                byte(hex.utf8Start[Int(value & 0xF)])
            }
        }
        copy(base + runStart, count: utf8.count - runStart)
        byte(UInt8(ascii: "\""))
    }

    /// A UUID as `"` + its 36 lower-case characters + `"` (38 bytes).
    mutating func uuid(_ value: UUID) {
        byte(UInt8(ascii: "\""))
        UUIDText.write(value, into: UnsafeMutableRawBufferPointer(start: pointer, count: 36), at: 0)
        pointer += 36
        byte(UInt8(ascii: "\""))
    }

    /// A day as the string `"YYYY-MM-DD"` (12 bytes; years 1900 … 9999).
    mutating func day(year: Int, month: Int, day: Int) {
        byte(UInt8(ascii: "\""))
        digits(year, width: 4)
        byte(UInt8(ascii: "-"))
        digits(month, width: 2)
        byte(UInt8(ascii: "-"))
        digits(day, width: 2)
        byte(UInt8(ascii: "\""))
    }

    /// `value` as exactly `width` decimal digits, zero-padded.
    private mutating func digits(_ value: Int, width: Int) {
        var rest = value
        let end = pointer + width
        var position = end
        while position > pointer {
            position -= 1
            position.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        pointer = end
    }

    @inline(__always)
    private mutating func copy(_ source: UnsafePointer<UInt8>, count: Int) {
        guard count > 0 else { return }
        pointer.update(from: source, count: count)
        pointer += count
    }
}

extension JSONWriter {
    /// Appends what `write` lays out with a cursor over room for `maximum` bytes; `write` must write no more.
    /// One append to ``bytes`` (from the stack for small values) instead of one per fragment.
    @inline(__always)
    mutating func append(atMost maximum: Int, _ write: (inout JSONByteCursor) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximum) { room in
            guard let start = room.baseAddress else { return }
            var cursor = JSONByteCursor(start)
            write(&cursor)
            precondition(cursor.count <= maximum, "a JSON fragment passed the room reserved for it")
            bytes.append(contentsOf: UnsafeBufferPointer(start: start, count: cursor.count))
        }
    }
}
