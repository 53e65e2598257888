import ExpenseCore
import FoundationEssentials

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
        copy(text.utf8Start, count: text.utf8CodeUnitCount)
    }

    /// `true` or `false` (at most 5 bytes).
    mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    /// An integer in decimal (at most 20 bytes), two digits at a time from ``decimalPairs``.
    mutating func int64(_ value: Int64) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 1
        var power: UInt64 = 10
        while digits < 20, magnitude >= power {
            digits += 1
            power = power &* 10
        }
        var position = pointer + digits
        pointer = position
        Self.decimalPairs.withUnsafeBufferPointer { pairs in
            while magnitude >= 100 {
                position -= 2
                UnsafeMutableRawPointer(position).storeBytes(of: pairs[Int(magnitude % 100)], as: UInt16.self)
                magnitude /= 100
            }
            if magnitude >= 10 {
                position -= 2
                UnsafeMutableRawPointer(position).storeBytes(of: pairs[Int(magnitude)], as: UInt16.self)
            } else {
                position -= 1
                position.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
            }
        }
    }

    /// The two digits of 0 … 99, as a `UInt16` holding them in memory order.
    private static let decimalPairs: [UInt16] = (0..<100).map { value in
        withUnsafeBytes(of: (UInt8(ascii: "0") + UInt8(value / 10), UInt8(ascii: "0") + UInt8(value % 10))) {
            $0.loadUnaligned(as: UInt16.self)
        }
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
        uuid(bytes: value.uuid)
    }

    /// ``uuid(_:)`` of the UUID whose 16 bytes are `bytes`.
    mutating func uuid(bytes: uuid_t) {
        byte(UInt8(ascii: "\""))
        UUIDText.write(bytes: bytes, into: UnsafeMutableRawBufferPointer(start: pointer, count: 36), at: 0)
        pointer += 36
        byte(UInt8(ascii: "\""))
    }

    /// A day as the string `"YYYY-MM-DD"` (12 bytes; years 1900 … 9999; each part written modulo its width).
    mutating func day(year: Int, month: Int, day: Int) {
        byte(UInt8(ascii: "\""))
        Self.decimalPairs.withUnsafeBufferPointer { pairs in
            func pair(_ value: Int) {
                UnsafeMutableRawPointer(pointer).storeBytes(of: pairs[value % 100], as: UInt16.self)
                pointer += 2
            }
            pair(year / 100)
            pair(year)
            byte(UInt8(ascii: "-"))
            pair(month)
            byte(UInt8(ascii: "-"))
            pair(day)
        }
        byte(UInt8(ascii: "\""))
    }

    /// Copies `count` bytes; a short run (names, codes, the usual category and note) eight bytes at a time in
    /// place, a `memmove` call costing more than the copy.
    @inline(__always)
    private mutating func copy(_ source: UnsafePointer<UInt8>, count: Int) {
        guard count > 0 else { return }
        if count > 32 {
            pointer.update(from: source, count: count)
        } else {
            let from = UnsafeRawPointer(source), to = UnsafeMutableRawPointer(pointer)
            var offset = 0
            while offset + 8 <= count {
                to.storeBytes(of: from.loadUnaligned(fromByteOffset: offset, as: UInt64.self), toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            while offset < count {
                to.storeBytes(of: from.load(fromByteOffset: offset, as: UInt8.self), toByteOffset: offset, as: UInt8.self)
                offset += 1
            }
        }
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
