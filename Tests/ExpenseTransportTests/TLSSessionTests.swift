import COpenSSL
import Foundation
import Testing
@testable import ExpenseTransport

/// Two TLS sessions pumping bytes into each other: no sockets, no clocks.
@Suite struct TLSSessionTests {
    private func pair(_ fixture: TLSFixture, client configuration: TLSClientConfiguration,
                      serverName: String = "localhost") throws -> (TLSSession, TLSSession) {
        let server = try TLSSession(context: fixture.serverContext())
        let client = try TLSSession(context: TLSContext.client(configuration.verification), serverName: serverName)
        return (client, server)
    }

    @Test func handshakeThenLinesBothWaysAndCloseNotify() throws {
        let fixture = try TLSFixture()
        defer { fixture.remove() }
        let (client, server) = try pair(fixture, client: fixture.trusting)
        pump(client, server)
        #expect(client.state == .established)
        #expect(server.state == .established)
        #expect(client.peerFingerprint == fixture.fingerprint)
        let request = Array("{\"method\":\"ping\"}\n".utf8)
        #expect(request.withUnsafeBytes { client.encrypt($0) } == request.count)
        let first = pump(client, server)
        #expect(first.server == request)
        let answer = Array("{\"result\":{}}\n".utf8)
        #expect(answer.withUnsafeBytes { server.encrypt($0) } == answer.count)
        #expect(pump(client, server).client == answer)
        #expect(server.close())
        pump(client, server)
        #expect(client.state == .finished)
    }

    /// A released session holds no ciphertext buffer (OpenSSL's record buffers: the next test); a line of many
    /// records afterwards is taken, encrypted and delivered whole.
    @Test func anIdleSessionHoldsNoBufferAndALargeLineAfterwardsArrivesWhole() throws {
        let fixture = try TLSFixture()
        defer { fixture.remove() }
        let (client, server) = try pair(fixture, client: fixture.trusting)
        pump(client, server)
        #expect(server.state == .established)
        #expect(server.releaseRecordBuffers() && server.ciphertextBufferCapacity == 0)
        #expect(client.releaseRecordBuffers() && client.ciphertextBufferCapacity == 0)
        let small = Array("{\"method\":\"ping\"}\n".utf8)
        #expect(small.withUnsafeBytes { client.encrypt($0) } == small.count)
        #expect(pump(client, server).server == small)
        #expect(client.releaseRecordBuffers() && client.ciphertextBufferCapacity == 0)
        var large = (0..<300_000).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        large.append(UInt8(ascii: "\n"))
        for (from, to) in [(client, server), (server, client)] {
            var offset = 0
            while offset < large.count {
                let consumed = large.withUnsafeBytes { from.encrypt(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
                #expect(consumed > 0)
                guard consumed > 0 else { break }
                offset += consumed
            }
            let received = pump(client, server)
            #expect((to === server ? received.server : received.client) == large)
            #expect(from.releaseRecordBuffers() && from.ciphertextBufferCapacity == 0)
        }
        #expect(small.withUnsafeBytes { server.encrypt($0) } == small.count)
        #expect(pump(client, server).client == small)
    }

    /// A quiet session gives OpenSSL's record buffers back and takes them again for the next record; with a record
    /// half received it keeps them, and the record's rest still decrypts whole.
    @Test func aQuietSessionGivesItsRecordBuffersBackAndTheNextRecordTakesThemAgain() throws {
        let fixture = try TLSFixture()
        defer { fixture.remove() }
        let (client, server) = try pair(fixture, client: fixture.trusting)
        pump(client, server)
        #expect(server.state == .established)
        let ping = Array("{\"method\":\"ping\"}\n".utf8)
        let pong = Array("{\"result\":{}}\n".utf8)
        for _ in 0..<3 {
            #expect(ping.withUnsafeBytes { client.encrypt($0) } == ping.count)
            #expect(pump(client, server).server == ping)
            #expect(server.mayHoldRecordBuffers)
            #expect(server.releaseRecordBuffers())
            #expect(!server.mayHoldRecordBuffers)
            #expect(!server.releaseRecordBuffers())
            #expect(pong.withUnsafeBytes { server.encrypt($0) } == pong.count)
            #expect(server.mayHoldRecordBuffers)
            #expect(pump(client, server).client == pong)
            #expect(client.releaseRecordBuffers())
        }
        #expect(ping.withUnsafeBytes { client.encrypt($0) } == ping.count)
        let record = client.withPendingCiphertext { Array($0) }
        client.consumeCiphertext(record.count)
        var received: [UInt8] = []
        record.prefix(10).withUnsafeBytes { server.advance(receiving: $0) { received += $0 } }
        #expect(received.isEmpty)
        #expect(!server.releaseRecordBuffers())
        record.dropFirst(10).withUnsafeBytes { server.advance(receiving: $0) { received += $0 } }
        #expect(received == ping)
        #expect(server.state == .established)
    }

    /// A session keeps its ciphertext buffer while it carries traffic (no allocation per record) and holds none once
    /// the record buffers are given back; the next records still go both ways, and are released again.
    @Test func aQuietSessionsBIOHoldsNoBufferAfterRelease() throws {
        let fixture = try TLSFixture()
        defer { fixture.remove() }
        let (client, server) = try pair(fixture, client: fixture.trusting)
        pump(client, server)
        #expect(server.state == .established)
        #expect(server.ciphertextBufferCapacity > 0)
        let ping = Array("{\"method\":\"ping\"}\n".utf8)
        let pong = Array("{\"result\":{}}\n".utf8)
        for _ in 0..<3 {
            #expect(ping.withUnsafeBytes { client.encrypt($0) } == ping.count)
            #expect(pump(client, server).server == ping)
            #expect(pong.withUnsafeBytes { server.encrypt($0) } == pong.count)
            #expect(pump(client, server).client == pong)
            #expect(server.ciphertextBufferCapacity > 0)
            #expect(server.releaseRecordBuffers())
            #expect(server.ciphertextBufferCapacity == 0)
            #expect(client.releaseRecordBuffers())
            #expect(client.ciphertextBufferCapacity == 0)
        }
        #expect(server.close())
        pump(client, server)
        #expect(client.state == .finished)
    }

    /// The probe behind `TLSLineServerTests.theServerSendsNoSessionTickets`: a server context that sends TLS 1.3
    /// tickets (OpenSSL's default of two, put back here) leaves the client holding one after a round trip; the
    /// daemon's context leaves it holding none.
    @Test func aClientSeesSessionTicketsOnlyFromAServerThatSendsThem() throws {
        let fixture = try TLSFixture()
        defer { fixture.remove() }
        for sendsTickets in [true, false] {
            let context = try fixture.serverContext()
            if sendsTickets { _ = SSL_CTX_set_num_tickets(context.pointer, 2) }
            let server = try TLSSession(context: context)
            let client = try TLSSession(context: TLSContext.client(fixture.trusting.verification), serverName: "localhost")
            pump(client, server)
            let answer = Array("{}\n".utf8)
            #expect(answer.withUnsafeBytes { server.encrypt($0) } == answer.count)
            #expect(pump(client, server).client == answer)
            #expect(client.holdsSessionTicket == sendsTickets)
        }
    }

    @Test func nothingIsEncryptedBeforeTheHandshakeFinishes() throws {
        let fixture = try TLSFixture()
        defer { fixture.remove() }
        let (client, _) = try pair(fixture, client: fixture.trusting)
        #expect([UInt8](repeating: 1, count: 10).withUnsafeBytes { client.encrypt($0) } == 0)
        #expect(client.state == .handshaking)
    }

    @Test func anIPAddressIsVerifiedAgainstTheCertificatesIPEntries() throws {
        let fixture = try TLSFixture(hosts: ["localhost", "127.0.0.1"])
        defer { fixture.remove() }
        let (client, server) = try pair(fixture, client: fixture.trusting, serverName: "127.0.0.1")
        pump(client, server)
        #expect(client.state == .established)
        let (other, otherServer) = try pair(fixture, client: fixture.trusting, serverName: "127.0.0.2")
        pump(other, otherServer)
        #expect(other.state == .failed(.hostMismatch(host: "127.0.0.2")))
    }

    @Test func aWrongHostNameFailsAsHostMismatch() throws {
        let fixture = try TLSFixture(hosts: ["expense.example"])
        defer { fixture.remove() }
        let (client, server) = try pair(fixture, client: fixture.trusting, serverName: "localhost")
        pump(client, server)
        #expect(client.state == .failed(.hostMismatch(host: "localhost")))
        #expect(server.state != .established)
    }

    @Test func aCertificateFromAnotherAuthorityFailsAsUnknownCA() throws {
        let fixture = try TLSFixture()
        let other = try TLSFixture(name: "other")
        defer { fixture.remove(); other.remove() }
        let (client, server) = try pair(fixture, client: other.trusting)
        pump(client, server)
        guard case .failed(let error) = client.state else { Issue.record("handshake succeeded"); return }
        #expect(error.code == "unknown_ca")
    }

    @Test func anExpiredCertificateFailsAsExpired() throws {
        let fixture = try TLSFixture(notBefore: -10 * 86_400, notAfter: -86_400)
        defer { fixture.remove() }
        let (client, server) = try pair(fixture, client: fixture.trusting)
        pump(client, server)
        guard case .failed(let error) = client.state else { Issue.record("handshake succeeded"); return }
        #expect(error.code == "certificate_expired")
    }

    @Test func aPinAcceptsItsCertificateAndRefusesAnother() throws {
        let fixture = try TLSFixture()
        let other = try TLSFixture(name: "other")
        defer { fixture.remove(); other.remove() }
        let (client, server) = try pair(fixture, client: TLSClientConfiguration(verification: .pin(fixture.fingerprint)))
        pump(client, server)
        #expect(client.state == .established)
        let (wrong, wrongServer) = try pair(fixture, client: TLSClientConfiguration(verification: .pin(other.fingerprint)))
        pump(wrong, wrongServer)
        #expect(wrong.state == .failed(.pinMismatch(expected: other.fingerprint, actual: fixture.fingerprint)))
    }

    @Test func plaintextToEitherSideFailsAtTheFirstByte() throws {
        let fixture = try TLSFixture()
        defer { fixture.remove() }
        let (client, server) = try pair(fixture, client: fixture.trusting)
        let line = Array("{\"jsonrpc\":\"2.0\"}\n".utf8)
        line.withUnsafeBytes { server.advance(receiving: $0) { _ in Issue.record("plaintext delivered") } }
        #expect(server.state == .failed(.plaintextClient))
        client.advance { _ in }
        line.withUnsafeBytes { client.advance(receiving: $0) { _ in Issue.record("plaintext delivered") } }
        #expect(client.state == .failed(.plaintextServer))
    }

    @Test func fingerprintsParseAndPrintAsSha256Hex() throws {
        let fixture = try TLSFixture()
        defer { fixture.remove() }
        let text = fixture.fingerprint.description
        #expect(text.hasPrefix("sha256:") && text.count == 7 + 64)
        #expect(CertificateFingerprint(parsing: text) == fixture.fingerprint)
        #expect(CertificateFingerprint(parsing: text.uppercased().replacingOccurrences(of: "SHA256:", with: "sha256:")) == fixture.fingerprint)
        #expect(CertificateFingerprint(parsing: "sha256:abc") == nil)
        #expect(try CertificateFactory.fingerprint(ofPEMFile: fixture.certificateFile) == fixture.fingerprint)
    }

    @Test func aKeyReadableByOthersIsRefused() throws {
        let fixture = try TLSFixture()
        defer { fixture.remove() }
        chmod(fixture.keyFile, 0o640)
        #expect(throws: TLSError.keyReadableByOthers(path: fixture.keyFile, mode: 0o100640)) { try fixture.serverContext() }
    }
}
