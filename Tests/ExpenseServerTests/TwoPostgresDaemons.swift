import ExpenseTransport
import Foundation
import PostgreSQL
import TestSupport
@testable import ExpenseServer

/// Two daemons serving one ledger `shared` from one PostgreSQL schema of their own (for the tests of what
/// several daemons share: the login throttle, token revocation).
struct TwoPostgresDaemons: Sendable {
    /// The two servers, listening on 127.0.0.1 (port 0).
    let servers: [Server]
    /// Their two directories, for a token poll run by hand.
    let directories: [PostgresLedgerDirectory]
    /// The owner token of `shared`.
    let owner: String
    /// The cluster's conninfo and the schema's name, for the `--postgres` commands beside the daemons.
    let conninfo: String
    let schema: String

    /// A new connection to the schema, for checks on its tables.
    func connect() throws -> PostgresConnection { try PostgresConnection(conninfo, schema: schema) }

    /// Starts the two daemons (with `configure` applied to their configuration), runs `body` on a thread of its
    /// own, then stops them and drops the schema, whether `body` threw or not.
    static func run(configure: (inout ServerConfiguration) -> Void = { _ in },
                    _ body: @escaping @Sendable (TwoPostgresDaemons) throws -> Void) async throws {
        let (conninfo, schema, one, two, owner) = try await onOwnThread {
            () throws -> (String, String, PostgresLedgerDirectory, PostgresLedgerDirectory, String) in
            let schema = try PostgresTestSchema()
            schema.dropsWhenGone = false
            let one = try PostgresLedgerDirectory(conninfo: schema.conninfo, schema: schema.schema, listens: false)
            let owner = try one.addLedger(name: "shared", currency: .usd)
            let two = try PostgresLedgerDirectory(conninfo: schema.conninfo, schema: schema.schema, listens: false)
            return (schema.conninfo, schema.schema, one, two, owner)
        }
        defer { PostgresTestSchema.drop(schema, conninfo: conninfo) }
        var configuration = ServerConfiguration()
        configuration.listen = SocketAddress(host: "127.0.0.1", port: 0)
        configure(&configuration)
        let servers = try [one, two].map { try Server(configuration: configuration, ledgers: $0, log: ServerLog { _ in }) }
        for server in servers { server.start() }
        let daemons = TwoPostgresDaemons(servers: servers, directories: [one, two], owner: owner, conninfo: conninfo, schema: schema)
        let outcome = await Result { try await onOwnThread { try body(daemons) } }
        for server in servers {
            server.stop()
            await server.waitUntilStopped()
        }
        await one.close()
        await two.close()
        try outcome.get()
    }
}
