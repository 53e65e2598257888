import ExpenseProtocol
import Foundation
import Testing
@testable import ExpenseServer

/// The login throttle over the wire (Protocol.md section 4): 5 free failures per (address, ledger), then one
/// attempt per interval; a refusal says `throttled` with a `retryAfter`. With a 60 s interval every throttled
/// attempt is more than 30 s away and so refused at once: no test waits.
@Suite struct LoginThrottleTests {
    /// Sends one hello on a new connection and returns the error, or `nil` when it succeeded.
    private static func hello(_ harness: LedgerServerHarness, ledger: String = "default", token: String) throws -> RPCError? {
        let client = try RawClient(harness.server)
        try client.send(LedgerServerHarness.hello(ledger: ledger, token: token))
        switch try client.receive() {
        case .response(_, .failure(let error))?: return error
        case .response(_, .success)?: return nil
        default: throw LedgerServerHarness.HarnessFailure.helloFailed
        }
    }

    @Test func theDocumentedFiveFailedHellosAreFreeAndTheSixthIsThrottled() async throws {
        try await withLedgerServer({ $0.authPenaltyInterval = .seconds(60) }) { harness in
            #expect(ServerConfiguration().authFreeFailures == 5)
            for attempt in 1...5 {
                let error = try Self.hello(harness, token: "guess")
                #expect(error?.code == RPCError.unauthorizedCode && error?.reason == "unauthorized", "attempt \(attempt)")
            }
            // The sixth attempt is not evaluated now, even with the right token.
            let sixth = try Self.hello(harness, token: harness.token)
            #expect(sixth?.code == RPCError.unauthorizedCode, "the sixth hello was answered at once")
            #expect(sixth?.reason == "throttled")
            #expect((sixth?.retryAfter ?? 0) > 30 && (sixth?.retryAfter ?? 0) <= 60, "\(String(describing: sixth))")
        }
    }

    @Test func aMisconfiguredClientOfOneLedgerDoesNotLockOutAnotherBehindTheSameAddress() async throws {
        try await withLedgerServer({ $0.authPenaltyInterval = .seconds(60) }) { harness in
            _ = try harness.ledgers.addLedger(name: "second", currency: .usd)
            let secondToken = try String(contentsOfFile: harness.directory + "/second.token", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            for _ in 0..<6 { _ = try Self.hello(harness, ledger: "second", token: "stale") }
            // Same address (127.0.0.1, as behind one SSH tunnel), other ledger: served at once.
            #expect(try Self.hello(harness, ledger: "default", token: harness.token) == nil)
            // The failing ledger's key is throttled, the right token included.
            #expect(try Self.hello(harness, ledger: "second", token: secondToken)?.reason == "throttled")
        }
    }
}
