import FoundationEssentials

/// UUIDs to and from the 16-byte blobs that SQLite id columns hold (the client cache since its migration 10, the
/// daemon's SQLite store from its start): the UUID's bytes in order, so blobs sort exactly as the lower-case texts
/// of ``UUIDText`` do (hexadecimal digits sort like the nibbles they spell; the hyphens are at fixed places).
public enum UUIDBlob {
    /// The 16 bytes of `id`.
    public static func bytes(_ id: UUID) -> [UInt8] {
        withUnsafeBytes(of: id.uuid) { Array($0) }
    }

    /// The UUID of 16 bytes, or `nil` when `bytes` is not exactly 16 long.
    public static func uuid(_ bytes: [UInt8]) -> UUID? {
        guard bytes.count == 16 else { return nil }
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// The 16 bytes of the UUID spelled by `text` (UTF-8, ``UUIDText/parse(utf8:)``'s rules), or `nil`.
    public static func bytes(utf8 text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        UUIDText.parse(utf8: text).map(bytes)
    }

    /// The blobs `lower ..< upper` holding exactly the ids whose lower-case text starts with `prefix`, or `nil`
    /// when no id can start so (``UUIDText/isPossiblePrefix(_:)``). Either case; hyphens where the text has them.
    ///
    /// A blob that is a prefix of another sorts first, so the prefix's own bytes (an odd last digit padded with 0)
    /// are the lower bound and the next value at that length the upper one; past `ff…` it is 17 bytes of 0xff,
    /// above every 16-byte id.
    public static func range(prefix: String) -> (lower: [UInt8], upper: [UInt8])? {
        guard UUIDText.isPossiblePrefix(prefix) else { return nil }
        let digits = prefix.utf8.compactMap(UUIDText.hexValue)
        var lower: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            lower.append(digits[index] << 4 | (index + 1 < digits.count ? digits[index + 1] : 0))
        }
        // The next prefix: add one at the last digit's place (the high nibble of an odd last digit), with carry.
        var upper = lower
        var carry: UInt16 = digits.count % 2 == 1 ? 0x10 : 1
        for index in upper.indices.reversed() where carry != 0 {
            let sum = UInt16(upper[index]) + carry
            upper[index] = UInt8(sum & 0xFF)
            carry = sum >> 8
        }
        if carry != 0 || upper.isEmpty { upper = Array(repeating: 0xFF, count: 17) }
        return (lower, upper)
    }
}
