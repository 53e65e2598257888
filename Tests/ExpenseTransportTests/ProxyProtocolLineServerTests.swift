import TestSupport
import Foundation
import Synchronization
import Testing
@testable import ExpenseTransport

/// Log lines of a test server.
private final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    var log: @Sendable (String) -> Void { { line in self.lines.withLock { $0.append(line) } } }
    var all: [String] { lines.withLock { $0 } }
}

/// `PROXY TCP4 CLIENT 127.0.0.1 PORT 7468\r\n`.
private func version1Header(client: String, port: Int = 50000) -> [UInt8] {
    Array("PROXY TCP4 \(client) 127.0.0.1 \(port) 7468\r\n".utf8)
}

/// A line server that expects a PROXY header from `sources`.
private func withProxiedServer(_ sources: [String], _ configure: @escaping (inout LineServerConfiguration) -> Void = { _ in },
                               _ body: @escaping @Sendable (LineServer, LogLines) throws -> Void) async throws {
    let lines = LogLines()
    let ranges = try sources.map { text throws(TransportError) in try IPAddressRange(parsing: text) }
    try await withServer({ configuration in
        configuration.proxyProtocolSources = ranges
        configure(&configuration)
    }, log: lines.log) { server, _ in try body(server, lines) }
}

/// The end of a connection the server closed: end of stream, or a reset.
private func expectClosed(_ client: LineConnection) throws {
    do {
        #expect(try client.readLine(timeout: .seconds(10)) == nil)
    } catch TransportError.connectionClosed {}
}

/// The PROXY protocol in the line server (`serve --proxy-protocol`): read before TLS and framing, only from listed
/// proxies, its client address in the handle the session gets.
@Suite struct ProxyProtocolLineServerTests {
    @Test func aListedProxysVersion1HeaderGivesTheSessionTheClientAddress() async throws {
        try await withProxiedServer(["127.0.0.1"]) { server, _ in
            // The header and the first line in one write: what follows the header is the stream's.
            let first = try LineConnection(connectingTo: server.address)
            try first.write(version1Header(client: "203.0.113.7") + Array("peer\necho after\n".utf8))
            #expect(try first.readTextLine() == "203.0.113.7 127.0.0.1")
            #expect(try first.readTextLine() == "after")
            // The header alone, then lines.
            let second = try LineConnection(connectingTo: server.address, preamble: version1Header(client: "198.51.100.20"))
            try second.writeLine("peer")
            #expect(try second.readTextLine() == "198.51.100.20 127.0.0.1")
        }
    }

    @Test func aVersion2HeaderWithTLVsAndALocalHealthCheckAreBothServed() async throws {
        try await withProxiedServer(["10.0.0.0/8", "127.0.0.0/8"]) { server, _ in
            let relayed = ProxyHeaderTests.version2(body: ProxyHeaderTests.ipv4Body + [0x04, 0x00, 0x02, 0, 0])
            let client = try LineConnection(connectingTo: server.address, preamble: relayed)
            try client.writeLine("peer")
            #expect(try client.readTextLine() == "203.0.113.7 127.0.0.1")
            // LOCAL (HAProxy's own health check): the proxy's address stands, and nothing says "via".
            let check = try LineConnection(connectingTo: server.address,
                                           preamble: ProxyHeaderTests.version2(command: 0x20, family: 0x00, body: []))
            try check.writeLine("peer")
            #expect(try check.readTextLine() == "127.0.0.1 -")
        }
    }

    @Test func aMissingMalformedOrOversizedHeaderFromAListedProxyClosesWithALogLine() async throws {
        try await withProxiedServer(["127.0.0.1"]) { server, lines in
            let cases: [(bytes: [UInt8], code: String)] = [
                (Array("peer\n".utf8), "proxy_header_missing"),
                (Array("PROXY TCP4 203.0.113.7 127.0.0.1 050000 7468\r\npeer\n".utf8), "proxy_header_malformed"),
                (Array(("PROXY UNKNOWN " + String(repeating: "x", count: 200)).utf8), "proxy_header_too_long"),
                (ProxyHeaderTests.version2(body: [], length: 4000), "proxy_header_too_long"),
            ]
            for (index, item) in cases.enumerated() {
                let client = try LineConnection(connectingTo: server.address)
                try client.write(item.bytes)
                try expectClosed(client)
                #expect(server.failedHandshakeCount == index + 1)
                #expect(lines.all.contains { $0.contains("from 127.0.0.1:") && $0.contains("(\(item.code)); closing") },
                        "\(item.code): \(lines.all)")
            }
            // A header cut short by the peer's close is logged too.
            let cut = try LineConnection(connectingTo: server.address)
            try cut.write(Array("PROXY TCP4 203.0".utf8))
            cut.shutdownWrite()
            try expectClosed(cut)
            #expect(lines.all.contains { $0.contains("(proxy_header_truncated); closing") }, "\(lines.all)")
        }
    }

    @Test func theHelloTimeoutCoversTheHeader() async throws {
        try await withProxiedServer(["127.0.0.1"], { $0.handshakeTimeout = .milliseconds(100) }) { server, lines in
            let stalled = try LineConnection(connectingTo: server.address)
            try stalled.write(Array("PROXY TCP4 203.0.113.7".utf8))
            try expectClosed(stalled)
            #expect(lines.all.contains { $0.contains("no complete PROXY protocol header within") }, "\(lines.all)")
            #expect(server.failedHandshakeCount == 1)
        }
    }

    @Test func aHeaderFromAnAddressNotListedIsJustTheFirstLine() async throws {
        try await withProxiedServer(["10.0.0.0/8", "::1"]) { server, _ in
            let client = try LineConnection(connectingTo: server.address, preamble: version1Header(client: "203.0.113.7"))
            // The session gets the header as a line (the daemon's answer to it is a parse error) and the socket's peer.
            #expect(try client.readTextLine() == "unknown")
            try client.writeLine("peer")
            #expect(try client.readTextLine() == "127.0.0.1 -")
        }
    }

    @Test func tlsStartsAfterTheHeaderInClear() async throws {
        let fixture = try TLSFixture()
        defer { fixture.remove() }
        let identity = try fixture.identity()
        try await withProxiedServer(["127.0.0.1"], { $0.tls = identity }) { server, _ in
            for header in [version1Header(client: "203.0.113.7"), ProxyHeaderTests.version2(body: ProxyHeaderTests.ipv4Body)] {
                let client = try LineConnection(connectingTo: server.address, tls: fixture.trusting, preamble: header)
                #expect(client.peerCertificateFingerprint == fixture.fingerprint)
                try client.writeLine("peer")
                #expect(try client.readTextLine() == "203.0.113.7 127.0.0.1")
            }
            // Without the header, the ClientHello itself is what the listed proxy sent first: refused.
            #expect(throws: TransportError.self) {
                _ = try LineConnection(connectingTo: server.address, tls: fixture.trusting)
            }
        }
    }
}
