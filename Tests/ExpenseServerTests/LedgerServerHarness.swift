import TestSupport
import ExpenseProtocol
import ExpenseTransport
import Foundation
import Testing
@testable import ExpenseServer

/// A server over a real ledger directory (SQLite in a temporary directory), for the reliability,
/// hostile-input and security tests.
struct LedgerServerHarness: Sendable {
    let server: Server
    let directory: String
    let ledgers: LedgerDirectory
    let token: String
    let log: LogCapture
    /// What a test injects into the ledgers' stores (``StoreFaults``).
    let faults: StoreFaults

    /// A client that has said hello to `default` with a fresh clientId.
    func greetedClient() throws -> RawClient {
        let client = try RawClient(server)
        try client.send(Self.hello(token: token))
        let answer = try client.receive()
        guard case .response(_, .success)? = answer else { throw HarnessFailure.helloAnswered(String(describing: answer)) }
        return client
    }

    static func hello(id: Int = 1, ledger: String = "default", token: String, clientId: UUID = UUID()) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"hello","params":{"protocol":1,"ledger":"\#(ledger)","token":"\#(token)","clientId":"\#(clientId.uuidString)","clientName":"test"}}"#
    }

    /// Says hello on a new connection and pings: the daemon still serves others.
    func stillServes() throws -> Bool {
        let client = try greetedClient()
        try client.send(RawClient.request(id: 77, method: "ping"))
        return try client.receiveResult()?.id == RequestID(77)
    }

    enum HarnessFailure: Error {
        case helloFailed
        /// What came instead of hello's success (`nil`: nothing within the timeout, or the connection closed).
        case helloAnswered(String)
    }
}

/// Starts a server on port 0 over a new ledger directory, runs `body` on a plain thread, stops and cleans up;
/// checks that the token never reached the log.
func withLedgerServer(_ configure: (inout ServerConfiguration) -> Void = { _ in },
                      _ body: @escaping @Sendable (LedgerServerHarness) throws -> Void) async throws {
    let temporary = try TemporaryDirectory("expensed-rel"), directory = temporary.file("data")
    defer { temporary.remove() }
    let faults = StoreFaults()
    let ledgers = try LedgerDirectory(dataDirectory: directory, defaultCurrency: .usd, faults: faults)
    let token = try String(contentsOfFile: directory + "/default.token", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    var configuration = ServerConfiguration()
    configuration.listen = SocketAddress(host: "127.0.0.1", port: 0)
    configure(&configuration)
    let capture = LogCapture()
    let server = try Server(configuration: configuration, ledgers: ledgers, log: capture.log)
    server.start()
    let harness = LedgerServerHarness(server: server, directory: directory, ledgers: ledgers, token: token, log: capture,
                                      faults: faults)
    let outcome = await Result { try await onOwnThread { try body(harness) } }
    server.stop()
    await server.waitUntilStopped()
    await ledgers.close()
    #expect(!capture.all.contains { $0.contains(token) }, "a token reached the log")
    try outcome.get()
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
