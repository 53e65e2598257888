import TestSupport
import ExpenseCore
import ExpenseProtocol
import ExpenseTransport
import Foundation
import Synchronization
import Testing
@testable import ExpenseServer

/// A ledger double for the network layer: every put is applied, the head counts mutations.
///
/// It implements ``LedgerService``'s one form of each method as ``Ledger`` does, answering inline where the
/// ledger answers on its own thread: the network tests then never wait for a free thread of the cooperative pool,
/// which the other tests of this process share. It keeps no history, no identity, no statistics and no balances.
final class FakeLedger: LedgerService {
    let name: String
    let currency = Currency.usd
    let identity: LedgerIdentity? = nil
    private struct State {
        var head: Int64 = 0
        var watchers: [Int: @Sendable (Int64) -> Void] = [:]
        var nextWatch = 0
    }
    private let state = Mutex(State())

    init(name: String) { self.name = name }

    var head: Int64 { state.withLock { $0.head } }

    func hello(clientId: UUID,
               completion: @escaping @Sendable (Result<(cursor: Int64, lastMutationId: Int64), any Error>) -> Void) {
        completion(.success((head, 0)))
    }

    /// The credential is ignored: the double has no tokens.
    func push(clientId: UUID, items: [PushItem], credential: TokenCredential?,
              completion: @escaping @Sendable (Result<PushResult, any Error>) -> Void) {
        let (results, head, watchers) = state.withLock { state in
            var results: [MutationResult] = []
            for item in items {
                state.head += 1
                results.append(MutationResult(mutationId: item.mutationId, status: .applied(version: 1, seq: state.head)))
            }
            return (results, state.head, Array(state.watchers.values))
        }
        for watcher in watchers { watcher(head) }
        completion(.success(PushResult(results: results, cursor: head)))
    }

    /// The page, written record by record.
    func pull(_ params: PullRequest, completion: @escaping @Sendable (Result<EncodedPullPage, any Error>) -> Void) {
        completion(Result { EncodedPullPage(try pulled(params)) })
    }

    private func pulled(_ params: PullRequest) throws -> PullResult {
        let head = head
        guard params.since <= head else { throw RPCError.invalidCursor("since is beyond the head") }
        return PullResult(changes: [], cursor: head, more: false)
    }

    func summary(_ request: SummaryRequest, completion: @escaping @Sendable (Result<SummaryResult, any Error>) -> Void) {
        completion(.success(SummaryResult(summary: Summary(totals: [], groups: []), cursor: head)))
    }

    /// Answers −32601: the double computes no statistics.
    func statistics(_ query: StatisticsQuery, conversion: ViewConversion?, completion: @escaping @Sendable (Result<StatsResult, any Error>) -> Void) {
        completion(.failure(RPCError.methodNotFound(StatsRequest.method)))
    }

    /// An empty page: the double keeps no history.
    func history(_ request: HistoryRequest, completion: @escaping @Sendable (Result<HistoryResult, any Error>) -> Void) {
        completion(.success(HistoryResult(entries: [], cursor: head, more: false, horizon: 0)))
    }

    /// No balances: the double keeps no records.
    func balances(currency: Currency?, conversion: ViewConversion?, today: CalendarDay, completion: @escaping @Sendable (Result<BalancesResult, any Error>) -> Void) {
        completion(.success(BalancesResult(balances: [], cursor: head)))
    }

    func watch(_ onAdvance: @escaping @Sendable (Int64) -> Void, completion: @escaping @Sendable (_ id: Int, _ head: Int64) -> Void) {
        let (id, head) = state.withLock { state in
            state.nextWatch += 1
            state.watchers[state.nextWatch] = onAdvance
            return (state.nextWatch, state.head)
        }
        completion(id, head)
    }

    func unwatch(_ id: Int, completion: @escaping @Sendable () -> Void) {
        state.withLock { _ = $0.watchers.removeValue(forKey: id) }
        completion()
    }
}

final class FakeLedgers: LedgerProvider {
    let ledger = FakeLedger(name: "default")
    static let token = "0123456789abcdef0123456789abcdef"

    func authenticate(ledger name: String, token: String, completion: @escaping @Sendable (Result<Authentication?, LedgerError>) -> Void) {
        completion(.success(name == "default" && token == Self.token
                            ? Authentication(ledger: ledger, credential: TokenCredential(name: "default", role: .owner)) : nil))
    }
}

/// Collects log lines, every level's unless told, so tests can check that no token is ever logged.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])
    private let level: ServerLog.Level
    init(level: ServerLog.Level = .debug) { self.level = level }
    var log: ServerLog { ServerLog(level: level) { line in self.lines.withLock { $0.append(line) } } }
    var all: [String] { lines.withLock { $0 } }
}


/// Starts a server on port 0 with a fake ledger, runs `body` on a plain thread, stops the server.
func withTestServer(_ configure: (inout ServerConfiguration) -> Void = { _ in },
                    _ body: @escaping @Sendable (Server) throws -> Void) async throws {
    var configuration = ServerConfiguration()
    configuration.listen = SocketAddress(host: "127.0.0.1", port: 0)
    configure(&configuration)
    let capture = LogCapture()
    let server = try Server(configuration: configuration, ledgers: FakeLedgers(), log: capture.log)
    server.start()
    defer { server.stop() }
    try await onOwnThread { try body(server) }
    server.stop()
    await server.waitUntilStopped()
    #expect(!capture.all.contains { $0.contains(FakeLedgers.token) })
}

/// A raw client that speaks JSON text.
struct RawClient {
    let connection: LineConnection

    init(_ server: Server) throws {
        connection = try LineConnection(connectingTo: server.address)
    }

    func send(_ text: String) throws { try connection.writeLine(text) }

    /// The next message, parsed; `nil` at end of stream.
    func receive() throws -> RPCIncoming? {
        guard let line = try connection.readLine(timeout: .seconds(20)) else { return nil }
        return try RPCClientCodec.parse(line)
    }

    /// The error code of the next message (which must be an error response), with its id.
    func receiveError() throws -> (id: RequestID?, error: RPCError)? {
        guard case .response(let id, .failure(let error))? = try receive() else { return nil }
        return (id, error)
    }

    /// The result of the next message (which must be a success), with its id.
    func receiveResult() throws -> (id: RequestID?, result: JSONValue)? {
        guard case .response(let id, .success(let result))? = try receive() else { return nil }
        return (id, result)
    }

    static func hello(id: Int = 1, token: String = FakeLedgers.token, ledger: String = "default", protocolVersion: String = "1") -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"hello","params":{"protocol":\#(protocolVersion),"ledger":"\#(ledger)","token":"\#(token)","clientId":"6f1c2a3e-1111-4222-8333-944455556666","clientName":"test"}}"#
    }

    static func request(id: Int, method: String, params: String = "{}") -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#
    }

    /// Sends hello and checks that it succeeded.
    func greet() throws {
        try send(Self.hello())
        guard case .response(_, .success)? = try receive() else {
            Issue.record("hello failed")
            return
        }
    }
}
