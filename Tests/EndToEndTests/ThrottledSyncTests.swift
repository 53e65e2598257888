import TestSupport
import ExpenseProtocol
import ExpenseTransport
import Foundation
import Testing

/// A `hello` refused by the daemon's login throttle (Protocol.md section 4: −32001 with reason `throttled` and
/// `retryAfter`) is "try again later" (exit 69), not a wrong token (exit 77).
@Suite(.serialized) struct ThrottledSyncTests {
    /// Answers every line with the throttle's refusal, then closes, as `expensed` does for a throttled `hello`.
    private final class ThrottlingSession: LineSession {
        func received(line: ArraySlice<UInt8>, appendingTo output: inout [UInt8]) -> LineDisposition {
            let id = (try? RPCRequest.parse(line).get().id).flatMap { $0 }?.description ?? "null"
            let answer = #"{"jsonrpc":"2.0","id":\#(id),"error":{"code":-32001,"data":{"reason":"throttled","retryAfter":42},"message":"too many failed attempts from this address for this ledger; try again in 42 s"}}"#
            return .reply(Array((answer + "\n").utf8), .close)
        }
        func lineTooLong() -> [UInt8] { [] }
        func closed() {}
    }

    @Test func aThrottledSyncExits69AndSaysWhenToTryAgain() async throws {
        let server = try LineServer(address: SocketAddress(host: "127.0.0.1", port: 0), configuration: LineServerConfiguration(),
                                    log: { _, _ in }) { _ in ThrottlingSession() }
        server.start()
        let port = server.address.port
        try await onOwnThread {
            let person = try ExpenseProcess()
            try person.succeed(["add", "12.50", "food"])
            let environment = ["EXPENSE_SERVER": "127.0.0.1:\(port)", "EXPENSE_LEDGER": "default", "EXPENSE_TOKEN": "t",
                               "EXPENSE_SYNC_ATTEMPTS": "1"]
            let sync = try person.run(["sync"], environment: environment)
            #expect(sync.status == 69, "\(sync)")
            #expect(sync.stderr.contains("Error: throttled:") && sync.stderr.contains("try again in 42 s"), "\(sync)")
            #expect(!sync.stderr.contains("token"), "a throttled hello is not a wrong token: \(sync)")
            // Nothing was lost: the change still waits.
            #expect(try person.run(["status"]).stdout.contains("pending:    1"))
        }
        server.stop()
        await server.waitUntilStopped()
    }
}
