import ExpenseCore
import ExpenseProtocol
import ExpenseTransport
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// Tokens over PostgreSQL across daemons: a token added by `expensed token add --postgres` opens the ledger
/// on every daemon at once, and one revoked there is refused everywhere and closes the connections every
/// daemon has open with it (the ledger row's `tokens_generation`).
@Suite(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
struct PostgresTokenRevocationTests {
    @Test func aTokenAddedAndRevokedBesideTwoDaemonsIsSeenByTheOpenConnectionsOfBoth() async throws {
        try await TwoPostgresDaemons.run { daemons in
            let (servers, owner, conninfo, schemaName) = (daemons.servers, daemons.owner, daemons.conninfo, daemons.schema)
            // Added beside both daemons, after they opened the ledger: the next hello on either works.
            let phone = try PostgresLedgerDirectory.addToken(conninfo: conninfo, schema: schemaName, ledger: "shared",
                                                            name: "phone", role: .editor)
            func hello(_ server: Server, _ token: String) throws -> RawClient {
                let client = try RawClient(server)
                try client.send(LedgerServerHarness.hello(ledger: "shared", token: token))
                return client
            }
            let idle = try hello(servers[0], phone)
            #expect(try idle.receiveResult() != nil)
            let busy = try hello(servers[1], phone)
            #expect(try busy.receiveResult() != nil)
            let ownerClient = try hello(servers[1], owner)
            #expect(try ownerClient.receiveResult() != nil)

            try PostgresLedgerDirectory.revokeToken(conninfo: conninfo, schema: schemaName, ledger: "shared", name: "phone")
            // Daemon two: the next request reaching the ledger takes the revoke in and closes the connection.
            try busy.send(RawClient.request(id: 5, method: "pull", params: #"{"since":0}"#))
            #expect(try busy.receiveError()?.error.code == RPCError.unauthorizedCode)
            #expect(try busy.receive() == nil)
            // Daemon one: an idle connection is closed by the token poll (one round here, no timer to wait for).
            let polled = DispatchSemaphore(value: 0)
            daemons.directories[0].checkTokens { polled.signal() }
            polled.wait()
            #expect(try idle.receive() == nil, "the revoked token's idle connection on the other daemon stayed open")
            for server in servers {
                let again = try hello(server, phone)
                #expect(try again.receiveError()?.error.code == RPCError.unauthorizedCode)
            }
            try ownerClient.send(RawClient.request(id: 9, method: "ping"))
            #expect(try ownerClient.receiveResult()?.id == RequestID(9), "another token's connection was touched")
        }
    }
}
