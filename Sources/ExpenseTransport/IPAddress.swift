#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address as its 4 or 16 bytes in network order: what the PROXY header carries and what
/// `serve --proxy-protocol` ranges match.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 bytes (IPv6), network byte order.
    public let bytes: [UInt8]

    /// The address of these 4 or 16 bytes.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = Array(bytes)
    }

    /// Parses the canonical text of an address: IPv4 as exactly four decimal numbers 0…255 without leading
    /// zeros (`010.1.1.1` is refused: octal or decimal?), IPv6 as `inet_pton` reads it (`::1`, `fd00::5`,
    /// `::ffff:192.0.2.1`), without brackets or a zone.
    public init?(parsing text: some StringProtocol) {
        let text = String(text)
        if let bytes = Self.parseIPv4(text) {
            self.bytes = bytes
            return
        }
        guard text.contains(":"), text.utf8.count <= 45, text.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        self.bytes = withUnsafeBytes(of: address) { Array($0) }
    }

    /// Whether this is an IPv4 address.
    public var isIPv4: Bool { bytes.count == 4 }

    /// An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, what a dual-stack socket reports for an IPv4 peer) as
    /// the IPv4 address it stands for; any other address unchanged.
    public var unmapped: IPAddress {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF,
              let v4 = IPAddress(bytes: bytes[12...]) else { return self }
        return v4
    }

    /// The canonical text: `192.0.2.1`, or IPv6 as `inet_ntop` writes it (`2001:db8::1`).
    public var description: String {
        if isIPv4 { return bytes.map { String($0) }.joined(separator: ".") }
        var address = in6_addr()
        withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Four dot-separated decimal numbers 0…255, each without a leading zero.
    private static func parseIPv4(_ text: String) -> [UInt8]? {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard let value = DecimalText.value(part, maximum: 255) else { return nil }
            bytes.append(UInt8(value))
        }
        return bytes
    }
}

/// Strict decimal numbers as the PROXY protocol writes them: ASCII digits only, no sign, no leading zero.
enum DecimalText {
    /// The value of `digits`, if it is 1 to 5 ASCII digits without a leading zero (`0` itself allowed) and at
    /// most `maximum`.
    static func value(_ digits: some Collection<UInt8>, maximum: Int) -> Int? {
        guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        if digits.count > 1, digits.first == 0x30 { return nil }
        let value = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        return value <= maximum ? value : nil
    }
}
