import ExpenseCore
import ExpenseProtocol
import ExpenseTransport
import Foundation
import Testing
@testable import ExpenseServer

/// Ledger isolation, token properties, file modes, throttling, logs.
@Suite(.serialized) struct SecurityTests {
    private static func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? nil
    }

    @Test func aTokenOfOneLedgerOpensNoOther() async throws {
        try await withLedgerServer { harness in
            let other = try harness.ledgers.addLedger(name: "other", currency: try #require(Currency(code: "EUR")))
            // A's token on B, B's token on A, either token on an unknown or path-like ledger name: −32001, closed.
            for (ledger, token) in [("other", harness.token), ("default", other), ("nope", other), ("../default", harness.token),
                                    ("default", ""), ("default", String(harness.token.dropLast())), ("default", harness.token.uppercased())] {
                let client = try RawClient(harness.server)
                try client.send(LedgerServerHarness.hello(ledger: ledger, token: token))
                let answer = try #require(try client.receiveError(), "hello(\(ledger)) was not refused")
                #expect(answer.error.code == -32001)
                #expect(try client.receive() == nil)
            }
            // Without a successful hello, every method fails, whatever it names.
            let anonymous = try RawClient(harness.server)
            for (index, method) in ["ping", "push", "pull", "summary", "watch"].enumerated() {
                try anonymous.send(RawClient.request(id: index, method: method, params: #"{"ledger":"other","token":"\#(other)"}"#))
                #expect(try anonymous.receiveError()?.error.code == -32001)
            }
            // What is written to one ledger is invisible in the other, through every method.
            let writer = try harness.greetedClient()
            try writer.send(#"{"jsonrpc":"2.0","id":2,"method":"push","params":{"mutations":[{"mutationId":1,"type":"put","id":"\#(UUID())","baseVersion":0,"fields":{"amount":700,"category":"secret","date":"2026-11-30"}}]}}"#)
            _ = try writer.receiveResult()
            let reader = try RawClient(harness.server)
            try reader.send(LedgerServerHarness.hello(ledger: "other", token: other))
            let hello = try HelloResult(json: try #require(try reader.receiveResult()).result)
            #expect(hello.ledger == "other")
            #expect(hello.cursor == 0)
            try reader.send(RawClient.request(id: 3, method: "pull", params: #"{"since":0}"#))
            #expect(try PullResult(json: try #require(try reader.receiveResult()).result).changes.isEmpty)
            try reader.send(RawClient.request(id: 4, method: "summary", params: #"{"groupBy":"category"}"#))
            #expect(try SummaryResult(json: try #require(try reader.receiveResult()).result).summary.totals.isEmpty)
            try reader.send(RawClient.request(id: 5, method: "ping"))
            #expect(try CursorResult(json: try #require(try reader.receiveResult()).result).cursor == 0)
            #expect(!harness.log.all.contains { $0.contains(other) })
        }
    }

    @Test func tokensAre256BitsFromTheCSPRNGAndNeverRepeat() {
        let tokens = (0..<2000).map { _ in Token.generate() }
        #expect(Set(tokens).count == tokens.count)
        for token in tokens.prefix(50) {
            #expect(token.utf8.count == 64)
            #expect(token.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        }
        // Every hex digit position is used evenly enough (a stuck bit would show): each digit ~ 1/16 of all.
        var counts = [Int](repeating: 0, count: 16)
        for token in tokens { for byte in token.utf8 { counts[Int(byte <= 57 ? byte - 48 : byte - 87)] += 1 } }
        let expected = Double(tokens.count * 64) / 16
        #expect(counts.allSatisfy { abs(Double($0) - expected) < expected * 0.1 })
    }

    @Test func tokenComparisonIsExactForEveryLengthAndPrefix() {
        let token = Token.generate()
        let expected = Token.digest(token)
        #expect(Token.matches(token, digest: expected))
        #expect(!Token.matches("", digest: expected))
        #expect(!Token.matches(String(token.dropLast()), digest: expected))
        #expect(!Token.matches(token + "0", digest: expected))
        #expect(!Token.matches(String(token.dropLast()) + (token.last == "0" ? "1" : "0"), digest: expected))
        #expect(!Token.matches(token.uppercased() == token ? "x" : token.uppercased(), digest: expected))
        #expect(!Token.matches(token + String(repeating: "\0", count: 8), digest: expected))
    }

    @Test func dataDirectoryTokenAndDatabaseAreOwnerOnly() async throws {
        try await withLedgerServer { harness in
            _ = try harness.ledgers.addLedger(name: "second", currency: .usd)
            #expect(Self.mode(harness.directory) == 0o700)
            for name in ["default", "second"] {
                #expect(Self.mode(harness.directory + "/\(name).token") == 0o600, "\(name).token")
                #expect(Self.mode(harness.directory + "/\(name).sqlite") == 0o600, "\(name).sqlite")
            }
            // After a write, the WAL and shared-memory files exist and have the database's mode.
            let client = try harness.greetedClient()
            try client.send(#"{"jsonrpc":"2.0","id":2,"method":"push","params":{"mutations":[{"mutationId":1,"type":"put","id":"\#(UUID())","baseVersion":0,"fields":{"amount":1,"category":"x","date":"2026-11-30"}}]}}"#)
            _ = try client.receiveResult()
            for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: harness.directory + "/default.sqlite" + suffix) {
                #expect(Self.mode(harness.directory + "/default.sqlite" + suffix) == 0o600, "\(suffix)")
            }
        }
    }

    @Test func bruteForceIsSlowedToOneAttemptPerIntervalPerAddress() async throws {
        try await withLedgerServer({
            $0.authFreeFailures = 3
            $0.authPenaltyInterval = .milliseconds(200)
        }) { harness in
            for _ in 0..<3 {
                let client = try RawClient(harness.server)
                try client.send(LedgerServerHarness.hello(token: "guess"))
                #expect(try client.receiveError()?.error.code == -32001)
            }
            // Past the free failures, 5 more guesses (even the right token) wait their turn: at least 4 intervals.
            let start = ContinuousClock.now
            for _ in 0..<4 {
                let client = try RawClient(harness.server)
                try client.send(LedgerServerHarness.hello(token: "guess"))
                #expect(try client.receiveError()?.error.code == -32001)
            }
            let right = try RawClient(harness.server)
            try right.send(LedgerServerHarness.hello(token: harness.token))
            #expect(try right.receiveResult() != nil)
            #expect(ContinuousClock.now - start >= .milliseconds(750), "7 guesses took only \(ContinuousClock.now - start)")
            #expect(harness.log.all.filter { $0.contains("hello failed") }.count == 7)
        }
    }

    @Test func theDefaultListenAddressIsLoopback() {
        let configuration = ServerConfiguration()
        #expect(configuration.listen.host == "127.0.0.1")
        #expect(configuration.listen.isLoopback)
        #expect(!SocketAddress(host: "0.0.0.0", port: 1).isLoopback)
    }
}
