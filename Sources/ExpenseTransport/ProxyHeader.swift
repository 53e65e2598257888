/// The PROXY protocol header that a load balancer (HAProxy's `send-proxy` / `send-proxy-v2`) writes before
/// anything else on a connection it relays, and its one parser.
///
/// The rules, from HAProxy's `doc/proxy-protocol.txt` (versions 1 and 2 of the PROXY protocol):
///
/// - The header comes first, in clear, before any byte of the relayed stream (for us: before the TLS
///   ClientHello or the first JSON line). A receiver configured for it must not guess whether it is there: on
///   a connection from a listed proxy it is required, and anything else closes the connection. From any
///   other address it is not looked for at all (spoofing a client address must take a trusted proxy).
/// - Version 1 is one US-ASCII line: `PROXY`, one space, `TCP4` or `TCP6` or `UNKNOWN`, then for TCP4/TCP6
///   exactly one space before each of the source address, the destination address, the source port and the
///   destination port, then CRLF. IPv4 addresses are four decimal numbers 0…255 without leading zeros; IPv6
///   addresses in their usual hexadecimal form, `::` allowed once; ports are decimal 0…65535 without leading
///   zeros. After `UNKNOWN` anything up to the CRLF is ignored (any bytes but CR and LF) and the real
///   connection's addresses stand.
///   The line is at most 107 bytes, CRLF included; a lone CR or LF does not end it.
/// - Version 2 is binary: the 12-byte signature `0D 0A 0D 0A 00 0D 0A 51 55 49 54 0A`; a byte whose high
///   nibble is the version (2, the only one accepted) and low nibble the command (0 LOCAL: the proxy's own
///   connection, such as a health check, whose addresses are ignored; 1 PROXY: relayed; others refused);
///   a byte whose high nibble is the address family (0 UNSPEC, 1 INET, 2 INET6, 3 UNIX; others refused) and
///   low nibble the transport (0 UNSPEC, 1 STREAM, 2 DGRAM; others refused); a 16-bit big-endian length of
///   what follows. For TCP over IPv4 (`0x11`) the block starts with 4 + 4 address bytes and 2 + 2 port bytes
///   (12), over IPv6 (`0x21`) with 16 + 16 + 2 + 2 (36); the rest of the length is TLVs (a type byte, a
///   16-bit big-endian length, the value), which are checked to fit and skipped. Other valid families and
///   transports (UNSPEC, UDP, UNIX) fall back to the real connection's addresses, as the spec allows.
///
/// Our bounds: a version 2 header of at most ``maximumVersion2Length`` bytes (addresses plus every TLV HAProxy
/// sends fit in far less); the hello timeout (`serve`'s 10 s) covers the header as it covers the TLS handshake.
public enum ProxyHeader: Hashable, Sendable {
    /// The connection was relayed for a client at `source` (v1 `TCP4`/`TCP6`, v2 PROXY over TCP). Hosts are
    /// numeric, an IPv4-mapped IPv6 address written as its IPv4 address.
    case relayed(source: SocketAddress, destination: SocketAddress)
    /// The proxy's own connection or one it cannot describe (v2 LOCAL, v1 `UNKNOWN`, v2 UNSPEC, UDP or UNIX):
    /// the socket's own peer address stands.
    case local

    /// The longest version 1 header, CRLF included (the spec's worst case: `UNKNOWN` with two IPv6 addresses).
    public static let maximumVersion1Length = 107
    /// The longest version 2 header accepted: its 16 fixed bytes and up to 2,032 bytes of addresses and TLVs.
    public static let maximumVersion2Length = 2048

    static let version2Signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]
    static let version1Signature: [UInt8] = Array("PROXY ".utf8)

    /// What the bytes received so far hold.
    public enum Parse: Hashable, Sendable {
        /// A valid beginning of a header: read more.
        case needMore
        /// A complete header of `length` bytes; the bytes after it belong to the relayed stream.
        case header(ProxyHeader, length: Int)
        /// Not a valid header: close the connection.
        case invalid(ProxyHeaderError)
    }

    /// Parses the first bytes of a connection (every byte received so far; call again with more after
    /// ``Parse/needMore``). Answers ``Parse/invalid(_:)`` as soon as the bytes can no longer become a header.
    public static func parse(_ bytes: [UInt8]) -> Parse {
        guard let first = bytes.first else { return .needMore }
        switch first {
        case version2Signature[0]: return parseVersion2(bytes)
        case version1Signature[0]: return parseVersion1(bytes)
        default: return .invalid(.missing)
        }
    }

    /// Whether `bytes` start like `signature` as far as both go.
    private static func matchesSignature(_ bytes: [UInt8], _ signature: [UInt8]) -> Bool {
        zip(bytes, signature).allSatisfy { $0 == $1 }
    }

    // MARK: Version 1

    private static func parseVersion1(_ bytes: [UInt8]) -> Parse {
        guard matchesSignature(bytes, version1Signature) else { return .invalid(.missing) }
        let searched = bytes.prefix(maximumVersion1Length)
        guard let lineFeed = searched.firstIndex(of: 0x0A) else {
            return bytes.count >= maximumVersion1Length ? .invalid(.tooLong(limit: maximumVersion1Length)) : .needMore
        }
        guard lineFeed >= version1Signature.count, bytes[lineFeed - 1] == 0x0D else { return .invalid(.malformed("line end")) }
        let line = bytes[version1Signature.count..<(lineFeed - 1)]
        guard !line.contains(0x0D) else { return .invalid(.malformed("line end")) }
        let length = lineFeed + 1
        // After UNKNOWN the spec says to ignore whatever comes before the CRLF.
        let unknown = Array("UNKNOWN".utf8)
        if line.starts(with: unknown), line.count == unknown.count || line[line.startIndex + unknown.count] == 0x20 {
            return .header(.local, length: length)
        }
        guard line.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return .invalid(.malformed("characters")) }
        let fields = line.split(separator: 0x20, omittingEmptySubsequences: false)
        switch String(decoding: fields[0], as: UTF8.self) {
        case "TCP4": return version1Addresses(fields, ipv4: true, length: length)
        case "TCP6": return version1Addresses(fields, ipv4: false, length: length)
        default: return .invalid(.malformed("protocol"))
        }
    }

    private static func version1Addresses(_ fields: [ArraySlice<UInt8>], ipv4: Bool, length: Int) -> Parse {
        guard fields.count == 5 else { return .invalid(.malformed("fields")) }
        guard let source = IPAddress(parsing: String(decoding: fields[1], as: UTF8.self)), source.isIPv4 == ipv4,
              let destination = IPAddress(parsing: String(decoding: fields[2], as: UTF8.self)), destination.isIPv4 == ipv4
        else { return .invalid(.malformed("address")) }
        guard let sourcePort = DecimalText.value(fields[3], maximum: 65_535),
              let destinationPort = DecimalText.value(fields[4], maximum: 65_535)
        else { return .invalid(.malformed("port")) }
        return .header(.relayed(source: SocketAddress(host: source.unmapped.description, port: UInt16(sourcePort)),
                                destination: SocketAddress(host: destination.unmapped.description, port: UInt16(destinationPort))),
                       length: length)
    }

    // MARK: Version 2

    private static func parseVersion2(_ bytes: [UInt8]) -> Parse {
        guard matchesSignature(bytes, version2Signature) else { return .invalid(.missing) }
        if bytes.count > 12 {
            guard bytes[12] >> 4 == 2 else { return .invalid(.malformed("version")) }
            guard bytes[12] & 0x0F <= 1 else { return .invalid(.malformed("command")) }
        }
        if bytes.count > 13 {
            guard bytes[13] >> 4 <= 3 else { return .invalid(.malformed("address family")) }
            guard bytes[13] & 0x0F <= 2 else { return .invalid(.malformed("transport")) }
        }
        guard bytes.count >= 16 else { return .needMore }
        let total = 16 + (Int(bytes[14]) << 8 | Int(bytes[15]))
        guard total <= maximumVersion2Length else { return .invalid(.tooLong(limit: maximumVersion2Length)) }
        guard bytes.count >= total else { return .needMore }
        let isLocal = bytes[12] & 0x0F == 0
        if isLocal { return .header(.local, length: total) }
        let addressLength: Int
        switch bytes[13] {
        case 0x11: addressLength = 12
        case 0x21: addressLength = 36
        default: return .header(.local, length: total)
        }
        guard total - 16 >= addressLength else { return .invalid(.malformed("address length")) }
        guard tlvsFit(bytes[(16 + addressLength)..<total]) else { return .invalid(.malformed("TLV")) }
        let width = (addressLength - 4) / 2
        let block = bytes[16..<(16 + addressLength)]
        guard let source = IPAddress(bytes: block.prefix(width)),
              let destination = IPAddress(bytes: block.dropFirst(width).prefix(width)) else {
            return .invalid(.malformed("address"))
        }
        let ports = block.suffix(4).map(UInt16.init)
        return .header(.relayed(source: SocketAddress(host: source.unmapped.description, port: ports[0] << 8 | ports[1]),
                                destination: SocketAddress(host: destination.unmapped.description, port: ports[2] << 8 | ports[3])),
                       length: total)
    }

    /// Whether `tlvs` is a sequence of whole TLVs (type, 16-bit length, value), each ending within it.
    private static func tlvsFit(_ tlvs: ArraySlice<UInt8>) -> Bool {
        var index = tlvs.startIndex
        while index < tlvs.endIndex {
            guard tlvs.endIndex - index >= 3 else { return false }
            let valueLength = Int(tlvs[index + 1]) << 8 | Int(tlvs[index + 2])
            index += 3 + valueLength
            guard index <= tlvs.endIndex else { return false }
        }
        return true
    }
}
