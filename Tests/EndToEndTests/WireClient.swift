import ExpenseCore
import ExpenseProtocol
import ExpenseTransport
import Foundation
import Testing


/// A blocking JSON-RPC client for the end-to-end tests.
final class WireClient {
    let connection: LineConnection
    private var nextId: Int64 = 0

    /// The clientId ``hello(token:clientId:ledger:)`` uses unless told otherwise.
    let clientId = UUID()

    init(_ address: SocketAddress) throws { connection = try LineConnection(connectingTo: address) }

    func close() { connection.close() }

    func call(_ method: String, _ params: String) throws -> Result<JSONValue, RPCError> {
        nextId += 1
        let id = nextId
        try connection.writeLine(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#)
        while true {
            guard let line = try connection.readLine(timeout: .seconds(30)) else { throw TransportError.connectionClosed }
            if case .response(let answered, let outcome) = try RPCClientCodec.parse(line), answered == RequestID(id) {
                return outcome
            }
        }
    }

    func result(_ method: String, _ params: String) throws -> JSONValue {
        switch try call(method, params) {
        case .success(let value): return value
        case .failure(let error): throw error
        }
    }

    func hello(token: String, clientId: UUID? = nil, ledger: String = "default") throws -> HelloResult {
        let id = (clientId ?? self.clientId).uuidString
        return try HelloResult(json: result("hello", #"{"protocol":1,"ledger":"\#(ledger)","token":"\#(token)","clientId":"\#(id)","clientName":"e2e"}"#))
    }

    /// Pushes `count` creates in one push, requires each to be applied, and returns `id → amount`.
    func pushCreates(count: Int, firstMutationId: Int64) throws -> [UUID: Int64] {
        var created: [UUID: Int64] = [:]
        let mutations = (0..<Int64(count)).map { offset in
            let id = UUID(), amount = (firstMutationId + offset) * 100 + 7
            created[id] = amount
            return #"{"mutationId":\#(firstMutationId + offset),"type":"put","id":"\#(id.uuidString)","baseVersion":0,"fields":{"amount":\#(amount),"category":"food","date":"2026-01-02","note":"e2e"}}"#
        }
        let pushed = try PushResult(json: result("push", #"{"mutations":[\#(mutations.joined(separator: ","))]}"#))
        let applied = pushed.results.allSatisfy { if case .applied = $0.status { true } else { false } }
        #expect(applied && pushed.results.count == count, "\(pushed)")
        return created
    }

    /// Every record, following `more`.
    func pullAll() throws -> [Record] {
        var records: [Record] = []
        var since: Int64 = 0
        while true {
            let page = try PullResult(json: result("pull", #"{"since":\#(since),"limit":1000}"#))
            records += page.changes
            since = page.cursor
            guard page.more else { return records }
        }
    }
}

