import ExpenseProtocol
import ExpenseTransport
import Testing
@testable import ExpenseServer

/// The daemon's `ping` fast path (`PingLine`, answered by `ClientSession` straight into the connection's output)
/// answers exactly what the general path does: the same bytes for every form, in order among other requests,
/// with the head of the moment, and nothing different before `hello`.
@Suite struct PingFastPathTests {
    /// Pings in forms the fast path takes and forms it leaves to the general path, with the answer each must get.
    private static let pings: [(line: String, id: RequestID)] = [
        (#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, RequestID(1)),
        (#"{"jsonrpc":"2.0","id":"a b","method":"ping","params":{}}"#, .string("a b")),
        (#" { "params" : null , "method" : "ping" , "id" : -0 , "jsonrpc" : "2.0" } "#, .number(JSONNumber(text: "-0"))),
        (#"{"jsonrpc":"2.0","id":1.50e3,"method":"ping"}"#, .number(JSONNumber(text: "1.50e3"))),  // general path
        (#"{"jsonrpc":"2.0","id":"\u00e9\"","method":"ping"}"#, .string("é\"")),  // general path
        (#"{"jsonrpc":"2.0","id":2,"method":"ping","params":{"ignored":true},"extra":1}"#, RequestID(2)),  // general path
    ]

    private static func answer(_ id: RequestID, head: Int64) -> [UInt8] {
        Array(RPCResponse.success(id: id, result: CursorResult(cursor: head)).dropLast())  // readLine drops `\n`
    }

    @Test func everyFormIsAnsweredWithTheGeneralPathsBytes() async throws {
        try await withTestServer { server in
            let client = try RawClient(server)
            try client.greet()
            for (line, id) in Self.pings {
                try client.send(line)
                #expect(try client.connection.readLine(timeout: .seconds(20)) == Self.answer(id, head: 0), "\(line)")
            }
        }
    }

    @Test func pipelinedPingsAreAnsweredInOrderWithTheHeadOfTheirTurn() async throws {
        try await withTestServer { server in
            let client = try RawClient(server)
            try client.greet()
            let push = #"{"jsonrpc":"2.0","id":"p","method":"push","params":{"mutations":[{"mutationId":1,"type":"delete","id":"6f1c2a3e-1111-4222-8333-944455556666","baseVersion":1}]}}"#
            let batch = Self.pings.map(\.line) + [push, #"{"jsonrpc":"2.0","id":9,"method":"nope"}"#] + Self.pings.map(\.line)
            try client.send(batch.joined(separator: "\n"))
            for (line, id) in Self.pings {
                #expect(try client.connection.readLine(timeout: .seconds(20)) == Self.answer(id, head: 0), "\(line)")
            }
            guard case .response(.string("p"), .success)? = try client.receive() else {
                Issue.record("the push was not answered in its turn")
                return
            }
            #expect(try client.receiveError()?.error.code == RPCError.methodNotFoundCode)
            for (line, id) in Self.pings {
                #expect(try client.connection.readLine(timeout: .seconds(20)) == Self.answer(id, head: 1), "\(line)")
            }
        }
    }

    @Test func aPingBeforeHelloIsStillRefused() async throws {
        try await withTestServer { server in
            let client = try RawClient(server)
            try client.send(Self.pings[0].line)
            let refused = try #require(try client.receiveError())
            #expect(refused.id == RequestID(1))
            #expect(refused.error.code == RPCError.unauthorizedCode)
            try client.greet()
            try client.send(Self.pings[0].line)
            #expect(try client.connection.readLine(timeout: .seconds(20)) == Self.answer(RequestID(1), head: 0))
        }
    }
}
