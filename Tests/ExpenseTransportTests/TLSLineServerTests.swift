import TestSupport
import Foundation
import Synchronization
import Testing
@testable import ExpenseTransport

/// A TLS port with the certificate of `fixture`.
private func withTLSServer(_ configure: (inout LineServerConfiguration) -> Void = { _ in },
                           _ body: @escaping @Sendable (LineServer, TLSFixture, EventCounter) throws -> Void) async throws {
    let fixture = try TLSFixture()
    defer { fixture.remove() }
    let identity = try fixture.identity()
    try await withServer({ configuration in
        configuration.tls = identity
        // Echo sessions never establish: a loaded machine must not hit the hello timeout mid-test (tests of the
        // timeout set their own).
        configuration.handshakeTimeout = .seconds(600)
        configure(&configuration)
    }) { server, closed in try body(server, fixture, closed) }
}

/// A verified TLS client of `server`.
private func connect(_ server: LineServer, _ fixture: TLSFixture, timeout: Duration = .seconds(5)) throws -> LineConnection {
    try LineConnection(connectingTo: server.address, timeout: timeout, tls: fixture.trusting)
}

/// The line server over TLS: framing, limits, backpressure and timeouts as over plaintext (LineServerTests).
@Suite struct TLSLineServerTests {
    @Test func answersInOrderOverTLSMixingInlineAndAsyncAnswers() async throws {
        try await withTLSServer { server, fixture, _ in
            let client = try connect(server, fixture)
            #expect(client.peerCertificateFingerprint == fixture.fingerprint)
            var batch = ""
            for index in 0..<100 { batch += index % 3 == 0 ? "later \(index)\n" : "echo \(index)\n" }
            try client.write(Array(batch.utf8))
            for index in 0..<100 { #expect(try client.readTextLine() == "\(index)") }
            // A large answer crosses many TLS records.
            let big = String(repeating: "x", count: 200_000)
            try client.writeLine("echo \(big)")
            #expect(try client.readTextLine() == big)
        }
    }

    @Test func lineTooLongOverTLSIsAnsweredThenClosedCleanly() async throws {
        try await withTLSServer({ $0.maximumLineLength = 1024 }) { server, fixture, _ in
            let client = try connect(server, fixture)
            try client.writeLine("echo before")
            // Small enough to sit in the socket buffers: the write never waits on the server's brief drain.
            try client.write([UInt8](repeating: 0x61, count: 8 * 1024))
            #expect(try client.readTextLine() == "before")
            #expect(try client.readTextLine() == "too long")
            #expect(try client.readTextLine() == nil)
        }
    }

    @Test func aSlowlorisStalledMidHandshakeIsClosedByTheHelloTimeout() async throws {
        try await withTLSServer({ $0.handshakeTimeout = .milliseconds(100) }) { server, fixture, closed in
            // The first 5 bytes of a TLS record header, then nothing.
            let stalled = try LineConnection(connectingTo: server.address)
            try stalled.write([0x16, 0x03, 0x01, 0x02, 0x00])
            #expect(try stalled.readLine(timeout: .seconds(5)) == nil)
            #expect(closed.wait(for: 1))
            #expect(server.failedHandshakeCount == 1)
        }
    }

    @Test func aPlaintextClientOnATLSPortIsClosedAtOnce() async throws {
        // A long hello timeout: the close must come from the first byte, not from a timer.
        try await withTLSServer({ $0.handshakeTimeout = .seconds(600) }) { server, _, closed in
            let plain = try LineConnection(connectingTo: server.address)
            try plain.writeLine(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
            do {
                #expect(try plain.readLine(timeout: .seconds(5)) == nil)
            } catch TransportError.connectionClosed {}
            #expect(closed.wait(for: 1))
            #expect(server.failedHandshakeCount == 1)
        }
    }

    @Test func aTLSClientOnAPlaintextPortFailsAsPlaintextServer() async throws {
        let fixture = try TLSFixture()
        defer { fixture.remove() }
        try await withServer({ $0.protocolMismatchReply = Array("{\"error\":\"plaintext port\"}\n".utf8) }) { server, closed in
            #expect(throws: TransportError.tls(.plaintextServer)) {
                _ = try LineConnection(connectingTo: server.address, tls: fixture.trusting)
            }
            #expect(closed.wait(for: 1))
            #expect(server.failedHandshakeCount == 1)
        }
    }

    @Test func certificateProblemsFailTheClientEachWithItsOwnCode() async throws {
        let other = try TLSFixture(name: "other")
        defer { other.remove() }
        try await withTLSServer { server, fixture, _ in
            #expect(throws: TransportError.tls(.pinMismatch(expected: other.fingerprint, actual: fixture.fingerprint))) {
                _ = try LineConnection(connectingTo: server.address, tls: TLSClientConfiguration(verification: .pin(other.fingerprint)))
            }
            do {
                _ = try LineConnection(connectingTo: server.address, tls: other.trusting)
                Issue.record("a certificate of another CA was accepted")
            } catch {
                #expect((error as? TransportError)?.code == "unknown_ca")
            }
            #expect(throws: TransportError.tls(.hostMismatch(host: "expense.example"))) {
                _ = try LineConnection(connectingTo: server.address,
                                       tls: TLSClientConfiguration(verification: .authority(caFile: fixture.certificateFile),
                                                                   serverName: "expense.example"))
            }
            // The daemon serves on after each failed handshake.
            let client = try connect(server, fixture)
            try client.writeLine("echo ok")
            #expect(try client.readTextLine() == "ok")
        }
    }

    @Test func aPeerThatNeverReadsIsClosedPastTheOutputLimitOverTLS() async throws {
        try await withTLSServer({ $0.outputLimit = 256 * 1024; $0.outputHighWater = 64 * 1024 }) { server, fixture, closed in
            let client = try connect(server, fixture)
            try client.writeLine("flood 20000")
            #expect(closed.wait(for: 1, timeout: .seconds(60)))  // 20 MiB offered; generous under a loaded full run
            var lines = 0
            do {
                while try client.readLine(timeout: .seconds(10)) != nil { lines += 1 }
            } catch TransportError.connectionClosed {
            } catch TransportError.tls {}
            #expect(lines < 20000)
        }
    }

    @Test func aBurstOfTLSConnectionsIsServed() async throws {
        try await withTLSServer({ $0.handshakeTimeout = .seconds(600) }) { server, fixture, _ in
            let clients = try (0..<60).map { _ in try connect(server, fixture) }
            for (index, client) in clients.enumerated() { try client.writeLine("later \(index)") }
            // Alone this takes 0.1 s; in a full run, beside every other suite on two cores, 41–56 s were seen, and
            // once a read passed the default 30 s: the reads wait as long as the other loaded tests here do.
            for (index, client) in clients.enumerated() { #expect(try client.readTextLine(timeout: .seconds(120)) == "\(index)") }
            #expect(server.connectionCount == 60)
        }
    }

    @Test func garbageAfterTheHandshakeIsFramedLikePlaintext() async throws {
        try await withTLSServer { server, fixture, _ in
            let client = try connect(server, fixture)
            var random = SeededGenerator(seed: 0x7150)
            var bytes: [UInt8] = []
            for _ in 0..<200 {
                bytes += (0..<Int.random(in: 0...60, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                    .filter { $0 != 0x0A } + [0x0A]
            }
            try client.write(bytes + Array("echo end\n".utf8))
            var ended = false
            while let line = try client.readTextLine() { if line == "end" { ended = true; break } }
            #expect(ended)
        }
    }

    @Test func reloadingTheIdentityServesTheNewCertificateToNewConnectionsOnly() async throws {
        try await withTLSServer { server, fixture, _ in
            let before = try LineConnection(connectingTo: server.address, tls: TLSClientConfiguration(verification: .recordFingerprint))
            #expect(before.peerCertificateFingerprint == fixture.fingerprint)
            let replacement = try TLSFixture(name: "renewed")
            defer { replacement.remove() }
            try FileManager.default.removeItem(atPath: fixture.certificateFile)
            try FileManager.default.copyItem(atPath: replacement.certificateFile, toPath: fixture.certificateFile)
            try FileManager.default.removeItem(atPath: fixture.keyFile)
            try FileManager.default.copyItem(atPath: replacement.keyFile, toPath: fixture.keyFile)
            // The identity the server holds is the one withTLSServer made from these paths.
            let reloaded = try #require(Self.identity(of: server))
            try reloaded.reload()
            let after = try LineConnection(connectingTo: server.address, tls: TLSClientConfiguration(verification: .recordFingerprint))
            #expect(after.peerCertificateFingerprint == replacement.fingerprint)
            try before.writeLine("echo old connection")
            #expect(try before.readTextLine() == "old connection")
        }
    }

    /// No resumption state is offered: a TLS 1.3 server sends tickets right after the handshake (before the first
    /// answer), so a client that read an answer has seen any; `SSL_CTX_set_num_tickets(0)` must stay in
    /// `TLSContext.server` (with `SSL_OP_NO_TICKET` alone, OpenSSL sends two stateful tickets per connection).
    @Test func theServerSendsNoSessionTickets() async throws {
        try await withTLSServer { server, fixture, _ in
            let client = try connect(server, fixture)
            try client.writeLine("echo one")
            #expect(try client.readTextLine() == "one")
            let session = try #require(client.tls)
            #expect(!session.holdsSessionTicket)
        }
    }

    private static func identity(of server: LineServer) -> TLSServerIdentity? { server.tlsIdentity }
}
