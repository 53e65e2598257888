import Foundation

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
    public static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard bytes.count == 36 else { return nil }
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = withUnsafeMutableBytes(of: &raw) { out -> Bool in
            var offset = 0
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    guard bytes[offset] == UInt8(ascii: "-") else { return false }
                    offset += 1
                }
                guard let high = hexValue(bytes[offset]), let low = hexValue(bytes[offset + 1]) else { return false }
                out[index] = high << 4 | low
                offset += 2
            }
            return true
        }
        return parsed ? UUID(uuid: raw) : nil
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
        precondition(offset >= 0 && offset + 36 <= out.count, "no room for 36 bytes")
        let hex: StaticString = "0123456789abcdef"
        withUnsafeBytes(of: id.uuid) { raw in
            var position = offset
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    out[position] = UInt8(ascii: "-")
                    position += 1
                }
                out[position] = hex.utf8Start[Int(raw[index] >> 4)]
                out[position + 1] = hex.utf8Start[Int(raw[index] & 0xF)]
                position += 2
            }
        }
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
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
