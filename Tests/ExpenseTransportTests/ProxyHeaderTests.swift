import Testing
@testable import ExpenseTransport

/// Vectors for the PROXY protocol parser (ProxyHeader.swift, after HAProxy's doc/proxy-protocol.txt).
@Suite struct ProxyHeaderTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// A version 2 header: signature, version/command, family/transport, big-endian length, then `body`.
    static func version2(command: UInt8 = 0x21, family: UInt8 = 0x11, body: [UInt8], length: Int? = nil) -> [UInt8] {
        let count = length ?? body.count
        return ProxyHeader.version2Signature + [command, family, UInt8(count >> 8), UInt8(count & 0xFF)] + body
    }

    static let ipv4Body: [UInt8] = [203, 0, 113, 7, 10, 0, 0, 2, 0xC3, 0x50, 0x1D, 0x2C]  // ports 50000, 7468
    static let ipv6Body: [UInt8] = [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [1]
        + [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [2] + [0x0F, 0xA0, 0x1D, 0x2C]

    static let valid: [(name: String, header: [UInt8], expected: ProxyHeader)] = [
        ("v1 TCP4", bytes("PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\n"),
         .relayed(source: SocketAddress(host: "192.168.0.1", port: 56324), destination: SocketAddress(host: "192.168.0.11", port: 443))),
        ("v1 TCP6", bytes("PROXY TCP6 2001:db8::1 2001:DB8:0:0:0:0:0:2 4000 0\r\n"),
         .relayed(source: SocketAddress(host: "2001:db8::1", port: 4000), destination: SocketAddress(host: "2001:db8::2", port: 0))),
        ("v1 TCP6 mapped IPv4", bytes("PROXY TCP6 ::ffff:198.51.100.9 ::1 65535 7468\r\n"),
         .relayed(source: SocketAddress(host: "198.51.100.9", port: 65535), destination: SocketAddress(host: "::1", port: 7468))),
        ("v1 UNKNOWN short", bytes("PROXY UNKNOWN\r\n"), .local),
        ("v1 UNKNOWN with anything before the CRLF ignored", bytes("PROXY UNKNOWN \u{e9}\u{1B} x  y\r\n"), .local),
        ("v1 UNKNOWN worst case, 107 bytes",
         bytes("PROXY UNKNOWN ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff 65535 65535\r\n"), .local),
        ("v2 TCP4", version2(body: ipv4Body),
         .relayed(source: SocketAddress(host: "203.0.113.7", port: 50000), destination: SocketAddress(host: "10.0.0.2", port: 7468))),
        ("v2 TCP4 with TLVs skipped", version2(body: ipv4Body + [0x04, 0x00, 0x03, 1, 2, 3] + [0x05, 0x00, 0x00] + [0x20, 0x00, 0x01, 0x01]),
         .relayed(source: SocketAddress(host: "203.0.113.7", port: 50000), destination: SocketAddress(host: "10.0.0.2", port: 7468))),
        ("v2 TCP6", version2(family: 0x21, body: ipv6Body),
         .relayed(source: SocketAddress(host: "2001:db8::1", port: 4000), destination: SocketAddress(host: "2001:db8::2", port: 7468))),
        ("v2 LOCAL, no addresses", version2(command: 0x20, family: 0x00, body: []), .local),
        ("v2 LOCAL with addresses ignored", version2(command: 0x20, family: 0x11, body: ipv4Body), .local),
        ("v2 PROXY UNSPEC", version2(family: 0x00, body: []), .local),
        ("v2 PROXY UDP4 falls back", version2(family: 0x12, body: ipv4Body), .local),
        ("v2 PROXY UNIX stream falls back", version2(family: 0x31, body: [UInt8](repeating: 0x2F, count: 216)), .local),
    ]

    @Test(arguments: valid.indices)
    func aValidHeaderParsesWithItsExactLengthAndLeavesWhatFollows(_ index: Int) {
        let (name, header, expected) = Self.valid[index]
        let stream = Self.bytes("{\"jsonrpc\":\"2.0\"}\n")
        #expect(ProxyHeader.parse(header) == .header(expected, length: header.count), "\(name)")
        #expect(ProxyHeader.parse(header + stream) == .header(expected, length: header.count), "\(name)")
        // A TLS ClientHello after the header is the relayed stream's, not the header's.
        #expect(ProxyHeader.parse(header + [0x16, 0x03, 0x01]) == .header(expected, length: header.count), "\(name)")
    }

    @Test(arguments: valid.indices)
    func everyTruncationOfAValidHeaderAsksForMore(_ index: Int) {
        let (name, header, _) = Self.valid[index]
        for cut in 0..<header.count {
            #expect(ProxyHeader.parse(Array(header.prefix(cut))) == .needMore, "\(name) cut at \(cut)")
        }
    }

    static let invalid: [(name: String, bytes: [UInt8], error: ProxyHeaderError)] = [
        ("a JSON line", bytes("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"), .missing),
        ("a TLS ClientHello", [0x16, 0x03, 0x01, 0x02, 0x00], .missing),
        ("PROXX", bytes("PROXX TCP4"), .missing),
        ("PROXY without its space", bytes("PROXY\r\n"), .missing),
        ("lowercase", bytes("proxy TCP4 1.2.3.4 5.6.7.8 1 2\r\n"), .missing),
        ("v1 without CRLF in 107 bytes", bytes("PROXY UNKNOWN " + String(repeating: "a", count: 93)), .tooLong(limit: 107)),
        ("v1 of 108 bytes", bytes("PROXY UNKNOWN ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff 65535 655350\r\n"),
         .tooLong(limit: 107)),
        ("v1 lone LF", bytes("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n"), .malformed("line end")),
        ("v1 CR inside", bytes("PROXY TCP4 1.2.3.4\r5.6.7.8 1 2\r\n"), .malformed("line end")),
        ("v1 unknown protocol", bytes("PROXY TCP5 1.2.3.4 5.6.7.8 1 2\r\n"), .malformed("protocol")),
        ("v1 empty", bytes("PROXY \r\n"), .malformed("protocol")),
        ("v1 missing port", bytes("PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n"), .malformed("fields")),
        ("v1 extra field", bytes("PROXY TCP4 1.2.3.4 5.6.7.8 1 2 3\r\n"), .malformed("fields")),
        ("v1 two spaces", bytes("PROXY TCP4  1.2.3.4 5.6.7.8 1 2\r\n"), .malformed("fields")),
        ("v1 leading zero in an address", bytes("PROXY TCP4 1.2.3.04 5.6.7.8 1 2\r\n"), .malformed("address")),
        ("v1 address over 255", bytes("PROXY TCP4 1.2.3.256 5.6.7.8 1 2\r\n"), .malformed("address")),
        ("v1 IPv6 under TCP4", bytes("PROXY TCP4 ::1 ::1 1 2\r\n"), .malformed("address")),
        ("v1 IPv4 under TCP6", bytes("PROXY TCP6 1.2.3.4 5.6.7.8 1 2\r\n"), .malformed("address")),
        ("v1 IPv6 with a zone", bytes("PROXY TCP6 fe80::1%eth0 ::1 1 2\r\n"), .malformed("address")),
        ("v1 port over 65535", bytes("PROXY TCP4 1.2.3.4 5.6.7.8 65536 2\r\n"), .malformed("port")),
        ("v1 port with a leading zero", bytes("PROXY TCP4 1.2.3.4 5.6.7.8 0443 2\r\n"), .malformed("port")),
        ("v1 signed port", bytes("PROXY TCP4 1.2.3.4 5.6.7.8 +1 2\r\n"), .malformed("port")),
        ("v1 non-ASCII", bytes("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\u{e9}\r\n"), .malformed("characters")),
        ("v1 control character", bytes("PROXY TCP4\u{1B}[2J 1.2.3.4 5.6.7.8 1 2\r\n"), .malformed("characters")),
        ("v1 UNKNOWN glued to more", bytes("PROXY UNKNOWNX\r\n"), .malformed("protocol")),
        ("v2 bad signature byte", [0x0D, 0x0A, 0x0D, 0x0A, 0x01], .missing),
        ("v2 version 1", version2(command: 0x11, body: ipv4Body), .malformed("version")),
        ("v2 version 3", version2(command: 0x31, body: ipv4Body), .malformed("version")),
        ("v2 command 2", version2(command: 0x22, body: ipv4Body), .malformed("command")),
        ("v2 family 4", version2(family: 0x41, body: ipv4Body), .malformed("address family")),
        ("v2 transport 3", version2(family: 0x13, body: ipv4Body), .malformed("transport")),
        ("v2 TCP4 address block too short", version2(body: Array(ipv4Body.prefix(8))), .malformed("address length")),
        ("v2 TCP6 address block too short", version2(family: 0x21, body: ipv4Body), .malformed("address length")),
        ("v2 TLV cut in its header", version2(body: ipv4Body + [0x04, 0x00]), .malformed("TLV")),
        ("v2 TLV longer than the header", version2(body: ipv4Body + [0x04, 0x00, 0x05, 1, 2]), .malformed("TLV")),
        ("v2 over the bound", version2(body: [], length: ProxyHeader.maximumVersion2Length - 15), .tooLong(limit: 2048)),
        ("v2 65535 bytes announced", version2(body: [], length: 65535), .tooLong(limit: 2048)),
    ]

    @Test(arguments: invalid.indices)
    func anInvalidHeaderIsRefusedWithItsReason(_ index: Int) {
        let (name, bytes, error) = Self.invalid[index]
        #expect(ProxyHeader.parse(bytes) == .invalid(error), "\(name)")
    }

    @Test func aWrongFirstByteIsRefusedAtOnceWithoutWaitingForMore() {
        #expect(ProxyHeader.parse([0x7B]) == .invalid(.missing))
        #expect(ProxyHeader.parse([0x16]) == .invalid(.missing))
        #expect(ProxyHeader.parse(Self.bytes("PROXZ")) == .invalid(.missing))
        // A bad version 2 version byte is seen as soon as it arrives, before the length.
        #expect(ProxyHeader.parse(ProxyHeader.version2Signature + [0x10]) == .invalid(.malformed("version")))
    }

    @Test func theLargestVersion2HeaderIsAcceptedAndOneMoreByteIsNot() {
        // 16 fixed bytes + 12 address bytes + one NOOP TLV filling the rest: exactly the bound.
        let fill = ProxyHeader.maximumVersion2Length - 16 - 12 - 3
        let largest = Self.version2(body: Self.ipv4Body + [0x04, UInt8(fill >> 8), UInt8(fill & 0xFF)] + [UInt8](repeating: 0, count: fill))
        #expect(largest.count == ProxyHeader.maximumVersion2Length)
        guard case .header(.relayed, let length) = ProxyHeader.parse(largest) else {
            Issue.record("the largest header was refused")
            return
        }
        #expect(length == ProxyHeader.maximumVersion2Length)
        #expect(ProxyHeader.parse(Array(largest.prefix(16))) == .needMore)
    }
}

@Suite struct IPAddressRangeTests {
    @Test func addressesAndRangesMatchByPrefix() throws {
        let loopback = try IPAddressRange(parsing: "127.0.0.1")
        let private10 = try IPAddressRange(parsing: "10.0.0.0/8")
        let v6 = try IPAddressRange(parsing: "::1")
        let ula = try IPAddressRange(parsing: "fd00::/8")
        let everything = try IPAddressRange(parsing: "0.0.0.0/0")
        func address(_ text: String) throws -> IPAddress { try #require(IPAddress(parsing: text)) }
        #expect(loopback.contains(try address("127.0.0.1")))
        #expect(!loopback.contains(try address("127.0.0.2")))
        #expect(private10.contains(try address("10.255.3.4")))
        #expect(!private10.contains(try address("11.0.0.1")))
        // A dual-stack socket reports an IPv4 peer as IPv4-mapped IPv6.
        #expect(private10.contains(try address("::ffff:10.1.2.3")))
        #expect(v6.contains(try address("::1")))
        #expect(!v6.contains(try address("127.0.0.1")))
        #expect(ula.contains(try address("fd12:3456::9")))
        #expect(!ula.contains(try address("fe80::1")))
        #expect(everything.contains(try address("198.51.100.1")))
        #expect(!everything.contains(try address("2001:db8::1")))
        #expect(private10.description == "10.0.0.0/8")
        #expect(v6.description == "::1/128")
    }

    /// A range written as an IPv4-mapped IPv6 address (`::ffff:10.0.0.5`, `::ffff:10.0.0.0/104`) is the IPv4 range
    /// it stands for: ``IPAddressRange/contains(_:)`` reads every peer as its IPv4 address, so such a range kept as
    /// IPv6 matched no peer at all, not even its own address. Found by `Scripts/fuzz --target proxy`.
    @Test func anIPv4MappedRangeIsTheIPv4RangeItStandsFor() throws {
        func address(_ text: String) throws -> IPAddress { try #require(IPAddress(parsing: text)) }
        let single = try IPAddressRange(parsing: "::ffff:10.0.0.5")
        #expect(single.contains(single.network))
        #expect(single.contains(try address("10.0.0.5")))
        #expect(single.contains(try address("::ffff:10.0.0.5")))
        #expect(!single.contains(try address("10.0.0.6")))
        #expect(single.description == "10.0.0.5/32")
        let block = try IPAddressRange(parsing: "::ffff:10.0.0.0/104")
        #expect(block.contains(try address("10.200.0.1")))
        #expect(block.contains(try address("::ffff:10.200.0.1")))
        #expect(!block.contains(try address("11.0.0.1")))
        #expect(block.description == "10.0.0.0/8")
        #expect(try IPAddressRange(parsing: "::ffff:0:0/96").description == "0.0.0.0/0")
        // Shorter prefixes reach beyond the mapped block: they stay IPv6 ranges.
        #expect(try IPAddressRange(parsing: "::/64").description == "::/64")
        #expect(throws: TransportError.invalidAddressRange("::ffff:10.0.0.1/104")) { try IPAddressRange(parsing: "::ffff:10.0.0.1/104") }
    }

    @Test(arguments: ["", "10.0.0.0/", "/8", "10.0.0.0/33", "::/129", "10.0.0.1/8", "fd00::1/8", "localhost", "10.0.0",
                      "010.0.0.0/8", "10.0.0.0/08", "[::1]", "::1%lo", "1.2.3.4/-1"])
    func aBadRangeIsRefused(_ text: String) {
        #expect(throws: TransportError.invalidAddressRange(text)) { try IPAddressRange(parsing: text) }
    }
}
