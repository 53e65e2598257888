import FoundationEssentials

/// UUIDs to and from their 36-character text (`8-4-4-4-12` hexadecimal digits), without Foundation's
/// `UUID(uuidString:)` and `uuidString`, which go through `sscanf`/`strtoul` and `sprintf` and showed up in
/// the daemon's profile (every mutation's id is parsed once and written at least once).
///
/// Accepts exactly what `UUID(uuidString:)` accepts: 36 bytes, hyphens at offsets 8, 13, 18 and 23, and a
/// hexadecimal digit in either case everywhere else. Any version and variant.
public enum UUIDText {
    /// The UUID spelled by `text`, or `nil` when it is not exactly a UUID in either case.
    public static func parse(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { parse(utf8: $0) }
    }

    /// ``parse(_:)`` over UTF-8 bytes.
    ///
    /// A first sync parses a million ids: each digit is one look-up in ``digitValues`` (a value of 16 or more
    /// for a byte that is not a digit, seen once at the end), not a comparison per range.
    public static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard bytes.count == 36, let text = bytes.baseAddress, text[8] == UInt8(ascii: "-"), text[13] == UInt8(ascii: "-"),
              text[18] == UInt8(ascii: "-"), text[23] == UInt8(ascii: "-") else { return nil }
        return digitValues.withUnsafeBufferPointer { table -> UUID? in
            guard let values = table.baseAddress else { return nil }
            // The 32 digits into two 64-bit halves.
            var seen: UInt8 = 0
            @inline(__always)
            func digits(_ range: Range<Int>, into value: inout UInt64) {
                for offset in range {
                    let digit = values[Int(text[offset])]
                    seen |= digit
                    value = value << 4 | UInt64(digit & 0xF)
                }
            }
            var high: UInt64 = 0, low: UInt64 = 0
            digits(0..<8, into: &high)
            digits(9..<13, into: &high)
            digits(14..<18, into: &high)
            digits(19..<23, into: &low)
            digits(24..<36, into: &low)
            guard seen < 16 else { return nil }
            return withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        }
    }

    /// ``digitValue(_:)`` of every byte.
    private static let digitValues: [UInt8] = (0...255).map { digitValue(UInt8($0)) }

    /// ``hexValue(_:)`` without the optional: a value of 16 or more for a byte that is not a digit.
    @inline(__always)
    private static func digitValue(_ byte: UInt8) -> UInt8 {
        let digit = byte &- UInt8(ascii: "0")
        if digit < 10 { return digit }
        // Setting bit 0x20 maps exactly `A`…`F` (and `a`…`f` themselves) onto `a`…`f`.
        let letter = (byte | 0x20) &- UInt8(ascii: "a")
        return letter < 6 ? letter &+ 10 : 0xFF
    }

    /// The id as 36 lower-case characters, the way ids are stored and written on the wire.
    public static func lowercased(_ id: UUID) -> String {
        String(unsafeUninitializedCapacity: 36) { out in
            write(id, into: UnsafeMutableRawBufferPointer(out), at: 0)
            return 36
        }
    }

    /// Writes the id's 36 lower-case characters into `out` from `offset` (which must leave room for 36 bytes),
    /// for writers that lay out bytes themselves (the JSON writer puts 10,000 ids in a pull page).
    public static func write(_ id: UUID, into out: UnsafeMutableRawBufferPointer, at offset: Int) {
        write(bytes: id.uuid, into: out, at: offset)
    }

    /// ``write(_:into:at:)`` of the UUID whose 16 bytes are `bytes` (a store's blob, read without making a
    /// `UUID`).
    public static func write(bytes: uuid_t, into out: UnsafeMutableRawBufferPointer, at offset: Int) {
        precondition(offset >= 0 && offset + 36 <= out.count, "no room for 36 bytes")
        guard let start = out.baseAddress else { return }
        // Two digits per byte from ``digitPairs`` (a pull page writes 10,000 ids).
        digitPairs.withUnsafeBufferPointer { pairs in
            withUnsafeBytes(of: bytes) { raw in
                var position = start + offset
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        position.storeBytes(of: UInt8(ascii: "-"), as: UInt8.self)
                        position += 1
                    }
                    position.storeBytes(of: pairs[Int(raw[index])], as: UInt16.self)
                    position += 2
                }
            }
        }
    }

    /// The two lower-case digits of every byte, as a `UInt16` holding them in memory order.
    private static let digitPairs: [UInt16] = (0...255).map { byte in
        let hex = Array("0123456789abcdef".utf8)
        return withUnsafeBytes(of: (hex[byte >> 4], hex[byte & 0xF])) { $0.loadUnaligned(as: UInt16.self) }
    }

    /// Whether `text` can begin a UUID's text: at most 36 bytes, each a hexadecimal digit in either case,
    /// or a hyphen at offsets 8, 13, 18 and 23. `zzzz` and `abcd-ef` cannot name any id; `1B08` and
    /// `1b080588-94` can.
    public static func isPossiblePrefix(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count <= 36 else { return false }
        return bytes.enumerated().allSatisfy { offset, byte in
            [8, 13, 18, 23].contains(offset) ? byte == UInt8(ascii: "-") : hexValue(byte) != nil
        }
    }

    /// The value of one hexadecimal digit in either case, `nil` for any other byte.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        let value = digitValue(byte)
        return value < 16 ? value : nil
    }
}
