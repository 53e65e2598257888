import ExpenseProtocol
import ExpenseTransport
import Foundation
import Testing
@testable import ExpenseServer

/// The daemon behind a load balancer (`serve --proxy-protocol`, Protocol.md section 1): the client address of the
/// PROXY header is the one the login throttle (section 4) and the log see.
@Suite struct ProxyProtocolServerTests {
    /// One `hello` on a new connection relayed for `client` by the "proxy" at 127.0.0.1; the error, or `nil`.
    private static func hello(_ harness: LedgerServerHarness, from client: String, token: String) throws -> RPCError? {
        let header = Array("PROXY TCP4 \(client) 127.0.0.1 40000 7468\r\n".utf8)
        let connection = try LineConnection(connectingTo: harness.server.address, preamble: header)
        try connection.writeLine(LedgerServerHarness.hello(token: token))
        guard let line = try connection.readLine(timeout: .seconds(20)) else { throw LedgerServerHarness.HarnessFailure.helloFailed }
        switch try RPCClientCodec.parse(line) {
        case .response(_, .failure(let error)): return error
        case .response(_, .success): return nil
        default: throw LedgerServerHarness.HarnessFailure.helloFailed
        }
    }

    @Test func twoClientsBehindOneProxyAreThrottledSeparately() async throws {
        let proxy = try IPAddressRange(parsing: "127.0.0.1")
        try await withLedgerServer({
            $0.authPenaltyInterval = .seconds(60)
            $0.proxyProtocolSources = [proxy]
        }) { harness in
            for attempt in 1...5 {
                let error = try Self.hello(harness, from: "203.0.113.1", token: "guess")
                #expect(error?.reason == "unauthorized", "attempt \(attempt)")
            }
            // The guesser's sixth attempt waits its turn (refused: it is 60 s away), the right token included…
            let sixth = try Self.hello(harness, from: "203.0.113.1", token: harness.token)
            #expect(sixth?.reason == "throttled")
            // …while another client behind the same proxy is served at once.
            #expect(try Self.hello(harness, from: "203.0.113.2", token: harness.token) == nil)
            let lines = harness.log.all
            #expect(lines.contains { $0.contains("from 203.0.113.1 via 127.0.0.1: hello failed") }, "\(lines)")
            #expect(lines.contains { $0.contains("from 203.0.113.1 via 127.0.0.1: hello refused") }, "\(lines)")
            #expect(lines.contains { $0.contains("from 203.0.113.2 via 127.0.0.1: hello: ledger 'default'") }, "\(lines)")
        }
    }

    @Test func withoutProxyProtocolTheHeaderIsABadFirstLineAndTheSocketPeerIsThrottled() async throws {
        try await withLedgerServer({ $0.authPenaltyInterval = .seconds(60) }) { harness in
            let connection = try LineConnection(connectingTo: harness.server.address,
                                                preamble: Array("PROXY TCP4 203.0.113.1 127.0.0.1 40000 7468\r\n".utf8))
            let answer = try #require(try connection.readLine(timeout: .seconds(20)))
            guard case .response(_, .failure(let error)) = try RPCClientCodec.parse(answer) else {
                Issue.record("the header line was not refused")
                return
            }
            #expect(error.code == RPCError.parseErrorCode)
        }
    }
}
