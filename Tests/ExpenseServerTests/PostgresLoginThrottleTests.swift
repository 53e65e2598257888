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
    /// Two daemons on one schema, the same (address, ledger) rule as one daemon; `body` runs on its own thread.
    private static func withTwoDaemons(interval: Duration,
                                       _ body: @escaping @Sendable ([Server], String, @Sendable () throws -> PostgresConnection) throws -> Void) async throws {
        let (conninfo, schemaName, one, two, owner) = try await onOwnThread {
            () throws -> (String, String, PostgresLedgerDirectory, PostgresLedgerDirectory, String) in
            let schema = try PostgresTestSchema()
            schema.dropsWhenGone = false
            let one = try PostgresLedgerDirectory(conninfo: schema.conninfo, schema: schema.schema, listens: false)
            let owner = try one.addLedger(name: "shared", currency: .usd)
            let two = try PostgresLedgerDirectory(conninfo: schema.conninfo, schema: schema.schema, listens: false)
            return (schema.conninfo, schema.schema, one, two, owner)
        }
        defer { PostgresTestSchema.drop(schemaName, conninfo: conninfo) }
        var configuration = ServerConfiguration()
        configuration.listen = SocketAddress(host: "127.0.0.1", port: 0)
        configuration.authPenaltyInterval = interval
        let servers = try [one, two].map { try Server(configuration: configuration, ledgers: $0, log: ServerLog { _ in }) }
        for server in servers { server.start() }
        let outcome = await Result { try await onOwnThread { try body(servers, owner) { try PostgresConnection(conninfo, schema: schemaName) } } }
        for server in servers {
            server.stop()
            await server.waitUntilStopped()
        }
        await one.close()
        await two.close()
        try outcome.get()
    }

    /// One `hello` on a new connection; its error, or `nil` when it was accepted.
    private static func hello(_ server: Server, token: String) throws -> RPCError? {
        let client = try RawClient(server)
        try client.send(LedgerServerHarness.hello(ledger: "shared", token: token))
        return try client.receiveError()?.error
    }

    @Test func fiveFailuresSpreadOverTwoDaemonsThrottleTheSixthOnEither() async throws {
        // A minute between turns: the sixth attempt's turn is more than 30 s away, so it is refused at once.
        try await Self.withTwoDaemons(interval: .seconds(60)) { servers, owner, _ in
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
        try await Self.withTwoDaemons(interval: .seconds(1)) { servers, owner, connect in
            for attempt in 0..<5 { _ = try Self.hello(servers[attempt % 2], token: "wrong-\(attempt)") }
            let started = ContinuousClock.now
            #expect(try Self.hello(servers[1], token: owner) == nil)
            #expect(ContinuousClock.now - started >= .milliseconds(500), "the sixth attempt did not wait for its turn")
            let connection = try connect()
            let row = try connection.query("SELECT failures FROM auth_failures WHERE ledger = 'shared'").first
            #expect(row?.int64(0) == 5)
        }
    }
}
