import ExpenseCore
import ExpenseProtocol
import ExpenseTransport
import Foundation
import PostgreSQL
import Testing
import TestSupport
@testable import ExpenseServer

/// The login throttle over PostgreSQL (Protocol.md section 4): failed `hello`s are counted in the database, so
/// every daemon of one database sees the same count and N daemons do not allow N times the guesses.
@Suite(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
struct PostgresLoginThrottleTests {
    /// One `hello` on a new connection; its error, or `nil` when it was accepted.
    private static func hello(_ server: Server, token: String) throws -> RPCError? {
        let client = try RawClient(server)
        try client.send(LedgerServerHarness.hello(ledger: "shared", token: token))
        return try client.receiveError()?.error
    }

    @Test func fiveFailuresSpreadOverTwoDaemonsThrottleTheSixthOnEither() async throws {
        // A minute between turns: the sixth attempt's turn is more than 30 s away, so it is refused at once.
        try await TwoPostgresDaemons.run(configure: { $0.authPenaltyInterval = .seconds(60) }) { daemons in
            let (servers, owner) = (daemons.servers, daemons.owner)
            for attempt in 0..<5 {
                let error = try Self.hello(servers[attempt % 2], token: "wrong-\(attempt)")
                #expect(error?.code == RPCError.unauthorizedCode)
                #expect(error?.reason != RPCError.throttledReason, "attempt \(attempt + 1) was throttled")
            }
            for server in servers {
                let error = try Self.hello(server, token: owner)
                #expect(error?.reason == RPCError.throttledReason, "the sixth attempt was evaluated: \(String(describing: error))")
                #expect((error?.retryAfter ?? 0) > 30)
            }
        }
    }

    @Test func aRightTokenAtItsTurnIsAcceptedAndClearsNothing() async throws {
        // One second between turns: the right token waits for its turn on the other daemon, then is accepted;
        // as for one daemon, a success does not forget the failures (only 10 minutes without one does).
        try await TwoPostgresDaemons.run(configure: { $0.authPenaltyInterval = .seconds(1) }) { daemons in
            let (servers, owner) = (daemons.servers, daemons.owner)
            for attempt in 0..<5 { _ = try Self.hello(servers[attempt % 2], token: "wrong-\(attempt)") }
            let started = ContinuousClock.now
            #expect(try Self.hello(servers[1], token: owner) == nil)
            #expect(ContinuousClock.now - started >= .milliseconds(500), "the sixth attempt did not wait for its turn")
            let connection = try daemons.connect()
            let row = try connection.query("SELECT failures FROM auth_failures WHERE ledger = 'shared'").first
            #expect(row?.int64(0) == 5)
        }
    }
}
