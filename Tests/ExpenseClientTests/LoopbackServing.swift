import ExpenseClient
import ExpenseServer
import ExpenseTransport

/// A daemon front on 127.0.0.1 port 0 over `ledgers` (a SQLite or PostgreSQL directory of this process).
func serveOnLoopback(_ ledgers: any LedgerProvider) throws -> Server {
    var configuration = ServerConfiguration()
    configuration.listen = SocketAddress(host: "127.0.0.1", port: 0)
    configuration.shutdownGrace = .seconds(2)
    let server = try Server(configuration: configuration, ledgers: ledgers, log: .none)
    server.start()
    return server
}

/// A sync engine of `client` for `server` (its addresses), with the generous timeouts of the loaded test machine.
func loopbackEngine(_ client: TestClient, server: String, token: String,
                    dependencies: SyncEngine.Dependencies = .live) -> SyncEngine {
    var engine = SyncEngine(ledger: client.ledger, remote: RemoteConfiguration(server: server, ledger: "default", token: token),
                            dependencies: dependencies)
    engine.configuration.clientName = client.name
    engine.configuration.initialBackoff = .milliseconds(20)
    engine.configuration.timeout = .seconds(20)
    engine.configuration.connectTimeout = .seconds(20)
    return engine
}
