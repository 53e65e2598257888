import ExpenseCore
import ExpenseProtocol
import Foundation
import Synchronization
import Testing
@testable import ExpenseServer

/// The daemon's log: one line per successful `hello` and (at `debug`) per push, client-supplied text escaped.
@Suite struct ServerLogTests {
    /// Whether `line` holds a control character or a line break (it would break "one line per event").
    private static func hasControl(_ line: String) -> Bool {
        line.unicodeScalars.contains {
            [.control, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory)
        }
    }

    @Test func aSuccessfulHelloIsLoggedWithLedgerClientNameAndAddressEscaped() async throws {
        try await withLedgerServer { harness in
            let client = try RawClient(harness.server)
            let clientId = UUID()
            try client.send(#"{"jsonrpc":"2.0","id":1,"method":"hello","params":{"protocol":1,"ledger":"default","token":"\#(harness.token)","clientId":"\#(clientId.uuidString)","clientName":"lap\ntop\u001b[31m\u2028x"}}"#)
            #expect(try client.receiveResult() != nil)
            let lines = harness.log.all.filter { $0.contains("hello") }
            #expect(lines.count == 1, "\(lines)")
            let line = try #require(lines.first)
            #expect(line.contains("127.0.0.1") && line.contains("'default'"), "\(line)")
            #expect(line.contains(#"'lap\ntop\u{1B}[31m\u{2028}x'"#), "\(line)")
            #expect(line.contains(clientId.uuidString.lowercased()), "\(line)")
            #expect(!harness.log.all.contains(where: Self.hasControl), "\(harness.log.all)")
        }
    }

    @Test func aFailedHelloLogsTheLedgerNameEscaped() async throws {
        try await withLedgerServer { harness in
            let client = try RawClient(harness.server)
            try client.send(#"{"jsonrpc":"2.0","id":1,"method":"hello","params":{"protocol":1,"ledger":"x\ny\u0007","token":"guess","clientId":"\#(UUID().uuidString)"}}"#)
            #expect(try client.receiveError()?.error.code == RPCError.unauthorizedCode)
            let lines = harness.log.all.filter { $0.contains("hello failed") }
            #expect(lines.count == 1 && lines[0].contains(#"'x\ny\u{7}'"#), "\(harness.log.all)")
            #expect(!harness.log.all.contains(where: Self.hasControl), "\(harness.log.all)")
        }
    }

    @Test func eachPushIsLoggedWithItsCounts() async throws {
        try await withLedgerServer { harness in
            let client = try harness.greetedClient()
            let first = UUID(), second = UUID()
            func put(_ mutationId: Int, _ id: UUID, base: Int, amount: Int) -> String {
                #"{"mutationId":\#(mutationId),"type":"put","id":"\#(id)","baseVersion":\#(base),"fields":{"amount":\#(amount),"category":"food","date":"2026-11-30"}}"#
            }
            try client.send(RawClient.request(id: 2, method: "push", params: #"{"mutations":[\#(put(1, first, base: 0, amount: 100)),\#(put(2, first, base: 1, amount: 200))]}"#))
            _ = try #require(try client.receiveResult())
            // A duplicate, a conflict (amount changed since version 1), a rejection (amount 0), an applied create.
            let mixed = [put(1, first, base: 0, amount: 100), put(3, first, base: 1, amount: 300),
                          put(4, second, base: 0, amount: 0), put(5, second, base: 0, amount: 5)]
            try client.send(RawClient.request(id: 3, method: "push", params: #"{"mutations":[\#(mixed.joined(separator: ","))]}"#))
            _ = try #require(try client.receiveResult())
            let pushes = harness.log.all.filter { $0.contains("push") }
            #expect(pushes.count == 2, "\(harness.log.all)")
            #expect(pushes.first?.contains("2 applied, 0 duplicate, 0 conflict, 0 rejected") == true, "\(pushes)")
            #expect(pushes.last?.contains("1 applied, 1 duplicate, 1 conflict, 1 rejected") == true, "\(pushes)")
            #expect(pushes.allSatisfy { $0.contains("'default'") && $0.contains("127.0.0.1") }, "\(pushes)")
        }
    }

    /// A push line is `debug`: at the daemon's default level it is never made, let alone written.
    @Test func aPushIsNotLoggedAtInfoAndItsLineIsNeverMade() async throws {
        let capture = LogCapture(level: .info)
        let made = Mutex(0)
        let log = capture.log
        log(.debug, { made.withLock { $0 += 1 }; return "push" }())
        log(.info, { made.withLock { $0 += 1 }; return "hello" }())
        log(.error, "internal error")
        #expect(made.withLock { $0 } == 1)
        #expect(capture.all == ["hello", "internal error"])
        #expect(!log.logs(.debug) && log.logs(.info) && log.logs(.warning))
        #expect(ServerLog.Level.allCases.map(\.name) == ["debug", "info", "warning", "error"])
        #expect(ServerLog.Level.allCases.allSatisfy { ServerLog.Level(name: $0.name) == $0 } && ServerLog.Level(name: "loud") == nil)
    }
}
