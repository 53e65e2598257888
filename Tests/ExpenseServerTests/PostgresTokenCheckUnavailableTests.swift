import ExpenseCore
import ExpenseProtocol
import Foundation
import PostgreSQL
import Testing
import TestSupport
@testable import ExpenseServer

/// A `hello` on a daemon whose PostgreSQL connection is lost (Protocol.md §4): the tokens cannot be read, so
/// nobody is admitted, and the answer is the storage's (−32007 `storage_unavailable`), never a wrong token,
/// which a client would give up on and the login throttle would count against it.
@Suite(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
struct PostgresTokenCheckUnavailableTests {
    @Test func aTokenCheckOnALostConnectionIsStorageUnavailableAndTheNextOneReconnects() async throws {
        let (ledger, pid, conninfo, name, token) = try await onOwnThread { () throws -> (Ledger, Int64, String, String, String) in
            let schema = try PostgresTestSchema()
            schema.dropsWhenGone = false
            let token = Token.generate()
            let connection = try PostgresConnection(schema.conninfo, schema: schema.schema)
            try PostgresLedgerStore.create(connection: connection, name: "test", currency: .usd, token: token)
            let store = try PostgresLedgerStore(connection: connection, name: "test")
            let pid = try #require(try store.connection.query("SELECT pg_backend_pid()").first?.int64(0))
            return (Ledger(name: "test", currency: .usd, store: store), pid, schema.conninfo, schema.schema, token)
        }
        defer { PostgresTestSchema.drop(name, conninfo: conninfo) }
        func check() async -> Result<TokenCredential?, LedgerError> {
            await withCheckedContinuation { continuation in ledger.authenticate(token: token) { continuation.resume(returning: $0) } }
        }
        #expect(try await check().get()?.role == .owner)
        try await onOwnThread {
            _ = try PostgresConnection(conninfo).query("SELECT pg_terminate_backend($1::integer)", [.integer(pid)])
        }
        let lost = await check()
        guard case .failure(.storageUnavailable) = lost else {
            Issue.record("a lost connection answered \(lost), not storage_unavailable")
            return
        }
        #expect(LedgerError.storageUnavailable("x").rpcError.code == -32007)
        // The next check after the backoff step (100 ms) reconnects and admits the token again.
        let deadline = ContinuousClock.now + .seconds(10)
        var again = await check()
        while case .failure = again, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            again = await check()
        }
        #expect(try again.get()?.role == .owner, "\(again)")
        await ledger.close()
    }
}
