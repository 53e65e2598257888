import ExpenseCore
import ExpenseProtocol
import ExpenseTransport
import Foundation
import Testing
@testable import ExpenseServer

/// The network front over the real ledger engine (SQLite in a temporary directory).
@Suite struct ServerLedgerTests {
    @Test func pipelinedPushThenSummarySeesThePush() async throws {
        try await withLedgerServer { harness in
            let client = try RawClient(harness.server), token = harness.token
            let id = "7d4c1f0e-2a3b-4c5d-8e9f-0a1b2c3d4e5f"
            let push = #"{"jsonrpc":"2.0","id":2,"method":"push","params":{"mutations":[{"mutationId":1,"type":"put","id":"\#(id)","baseVersion":0,"fields":{"amount":1250,"category":"food","date":"2026-11-30","note":"lunch"}},{"mutationId":2,"type":"put","id":"\#(id)","baseVersion":0,"fields":{"amount":12.5,"category":"food","date":"2026-11-30"}}]}}"#
            try client.connection.write(Array((RawClient.hello(token: token) + "\n" + push + "\n" + RawClient.request(id: 3, method: "summary") + "\n").utf8))
            let hello = try HelloResult(json: try #require(try client.receiveResult()).result)
            #expect(hello.cursor == 0)
            #expect(hello.lastMutationId == 0)
            let pushed = try PushResult(json: try #require(try client.receiveResult()).result)
            #expect(pushed.results.count == 2)
            #expect(pushed.results.first?.status == .applied(version: 1, seq: 1))
            let summary = try SummaryResult(json: try #require(try client.receiveResult()).result)
            #expect(summary.summary.totals.first?.amount == 1250)
            try client.send(RawClient.request(id: 4, method: "pull", params: #"{"since":5}"#))
            let error = try #require(try client.receiveError())
            #expect(error.error.code == RPCError.invalidParamsCode)
            #expect(error.error.reason == "invalid_cursor")
        }
    }

    @Test func pipelinedPushThenPingSeesTheNewHead() async throws {
        try await withLedgerServer { harness in
            let client = try RawClient(harness.server), token = harness.token
            let push = #"{"jsonrpc":"2.0","id":2,"method":"push","params":{"mutations":[{"mutationId":1,"type":"put","id":"7d4c1f0e-2a3b-4c5d-8e9f-0a1b2c3d4e5f","baseVersion":0,"fields":{"amount":1250,"category":"food","date":"2026-11-30"}}]}}"#
            let ping = RawClient.request(id: 3, method: "ping")
            try client.connection.write(Array((RawClient.hello(token: token) + "\n" + ping + "\n" + push + "\n" + ping + "\n").utf8))
            _ = try #require(try client.receiveResult())
            let before = try #require(try client.receiveResult())
            #expect(before.result["cursor"]?.int64Value == 0)
            let pushed = try PushResult(json: try #require(try client.receiveResult()).result)
            #expect(pushed.cursor == 1)
            let after = try #require(try client.receiveResult())
            #expect(after.result["cursor"]?.int64Value == 1, "a ping pipelined after a push sees it")
        }
    }
}
