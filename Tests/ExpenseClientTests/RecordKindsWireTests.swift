import TestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import ExpenseTransport
import Foundation
import Testing

/// Record kinds on the wire (Protocol.md §10) against a real in-process daemon: a client that asks for them in
/// `hello` is served them; a protocol-1 client that never asks sees exactly what it always saw.
@Suite struct RecordKindsWireTests {
    /// Sends `lines` after a `hello` (asking for `kinds` when given) on one connection; returns the hello answer
    /// and each answer line, as text.
    static func exchange(_ daemon: TestDaemon, kinds: String?, _ lines: [String]) async throws -> [String] {
        let port = daemon.port, token = daemon.token
        return try await onOwnThread {
            let connection = try LineConnection(connectingTo: SocketAddress(host: "127.0.0.1", port: port))
            defer { connection.close() }
            let asked = kinds.map { #","kinds":\#($0)"# } ?? ""
            try connection.writeLine(#"{"jsonrpc":"2.0","id":0,"method":"hello","params":{"protocol":1,"ledger":"default","token":"\#(token)","clientId":"\#(UUID().uuidString)"\#(asked)}}"#)
            var answers = [try #require(try connection.readTextLine())]
            for line in lines {
                try connection.writeLine(line)
                answers.append(try #require(try connection.readTextLine()))
            }
            return answers
        }
    }

    @Test("a budget pushed by a kinds client is pulled by it, and a protocol-1 client sees only the expenses")
    func kindsAndProtocolOne() async throws {
        let daemon = try TestDaemon()
        let budget = UUIDText.lowercased(Budget.id(category: "food", currency: .usd))
        // The id Protocol.md §10.1's transcript shows (a name-based UUID any language can compute).
        #expect(budget == "92dace8d-3c4e-5746-90fb-6934d3824a70")
        let push = #"{"jsonrpc":"2.0","id":1,"method":"push","params":{"mutations":["#
            + #"{"mutationId":1,"type":"put","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","baseVersion":0,"fields":{"amount":1250,"category":"food","date":"2026-11-30"}},"#
            + #"{"mutationId":2,"type":"put","kind":"budget","id":"\#(budget)","baseVersion":0,"fields":{"category":"food","currency":"USD","#
            + #""amounts":[{"from":"2026-11-01","amount":50000}],"period":"month","start":"2026-11-01","rollover":"none"}}]}}"#
        let pull = #"{"jsonrpc":"2.0","id":2,"method":"pull","params":{"since":0}}"#
        let asking = try await Self.exchange(daemon, kinds: #"["budget","recurring","setting","future"]"#, [push, pull])
        #expect(asking[0].contains(#""kinds":["budget","recurring","setting"]"#))
        #expect(asking[1] == #"{"jsonrpc":"2.0","id":1,"result":{"cursor":2,"results":[{"mutationId":1,"seq":1,"status":"applied","version":1},{"mutationId":2,"seq":2,"status":"applied","version":1}]}}"#)
        #expect(asking[2] == #"{"jsonrpc":"2.0","id":2,"result":{"changes":[{"amount":1250,"category":"food","currency":"USD","date":"2026-11-30","deleted":false,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","note":"","seq":1,"version":1},"#
            + #"{"deleted":false,"fields":{"amounts":[{"amount":50000,"from":"2026-11-01"}],"category":"food","currency":"USD","period":"month","rollover":"none","start":"2026-11-01"},"id":"\#(budget)","kind":"budget","seq":2,"version":1}],"cursor":2,"more":false}}"#)

        let plain = try await Self.exchange(daemon, kinds: nil, [pull])
        #expect(!plain[0].contains("kinds"))
        #expect(plain[1] == #"{"jsonrpc":"2.0","id":2,"result":{"changes":[{"amount":1250,"category":"food","currency":"USD","date":"2026-11-30","deleted":false,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","note":"","seq":1,"version":1}],"cursor":2,"more":false}}"#)
        // The reference client (protocol 1, no kinds) syncs as ever: one expense, totals untouched by the budget.
        let bob = try TestClient("bob")
        #expect(try await bob.sync(daemon).pulled == 1)
        #expect(try bob.live().count == 1)
        await daemon.stop()
    }

    @Test("kinds that are not an array of strings are invalid params; the connection stays open")
    func badKinds() async throws {
        let daemon = try TestDaemon()
        let answers = try await Self.exchange(daemon, kinds: #""budget""#, [])
        #expect(answers[0].contains(#""code":-32602"#) && answers[0].contains(#""field":"kinds""#))
        await daemon.stop()
    }
}
