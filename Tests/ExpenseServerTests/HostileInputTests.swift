import ExpenseCore
import ExpenseProtocol
import ExpenseTransport
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import ExpenseServer

/// Garbage and hostile clients: after each, the daemon still answers another client.
@Suite(.serialized) struct HostileInputTests {
    /// Sends `lines` and a ping with id 999; returns the answers that came before the ping's.
    private func answersBeforePing(_ client: RawClient, _ lines: [[UInt8]]) throws -> [RPCIncoming] {
        var bytes: [UInt8] = []
        for line in lines { bytes += line + [0x0A] }
        bytes += Array(RawClient.request(id: 999, method: "ping").utf8) + [0x0A]
        try client.connection.write(bytes)
        var answers: [RPCIncoming] = []
        while let answer = try client.receive() {
            if case .response(RequestID(999)?, .success) = answer { return answers }
            answers.append(answer)
        }
        Issue.record("the connection closed before the ping was answered")
        return answers
    }

    @Test func linesOfRandomBytesAreErrorsAndTheConnectionSurvives() async throws {
        try await withLedgerServer { harness in
            let client = try harness.greetedClient()
            var random = SeededGenerator(seed: 6_000_001)
            let lines = (0..<500).map { _ in
                (0..<Int.random(in: 1...200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                    .filter { $0 != 0x0A }
            }
            let answers = try answersBeforePing(client, lines)
            for answer in answers {
                guard case .response(_, .failure(let error)) = answer else {
                    Issue.record("random bytes were accepted: \(answer)")
                    continue
                }
                #expect([-32700, -32600].contains(error.code))
            }
            #expect(answers.count >= 490)  // blank (whitespace-only) lines are ignored, everything else answered
            #expect(try harness.stillServes())
        }
    }

    @Test(arguments: [
        [0xC0, 0xAF],              // overlong '/'
        [0xED, 0xA0, 0x80],        // a UTF-16 surrogate encoded in UTF-8
        [0xFF],                    // never valid
        [0xE2, 0x82],              // truncated sequence
        [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
    ] as [[UInt8]])
    func invalidUTF8IsAParseError(bad: [UInt8]) async throws {
        try await withLedgerServer { harness in
            let client = try harness.greetedClient()
            let line = Array(#"{"jsonrpc":"2.0","id":1,"method":"summary","params":{"category":""#.utf8) + bad + Array(#""}}"#.utf8)
            let answers = try answersBeforePing(client, [line])
            guard case .response(let id, .failure(let error))? = answers.first, answers.count == 1 else {
                Issue.record("expected one error, got \(answers)")
                return
            }
            #expect(error.code == -32700)
            #expect(id == nil)
            #expect(try harness.stillServes())
        }
    }

    @Test func deeplyNestedHugeNumbersAndDuplicateKeysAreRefusedWithoutHarm() async throws {
        try await withLedgerServer { harness in
            let client = try harness.greetedClient()
            let nested = Array(repeating: UInt8(ascii: "["), count: 100_000)
            let deepObject = Array(String(repeating: #"{"a":"#, count: 50_000).utf8)
            let digits = String(repeating: "7", count: 10_000)
            let hugeId = Array(#"{"jsonrpc":"2.0","id":\#(digits),"method":"ping"}"#.utf8)
            let hugeAmount = Array(#"{"jsonrpc":"2.0","id":5,"method":"push","params":{"mutations":[{"mutationId":1,"type":"put","id":"\#(UUID())","baseVersion":0,"fields":{"amount":\#(digits),"category":"x","date":"2026-01-01"}}]}}"#.utf8)
            let duplicate = Array(#"{"jsonrpc":"2.0","id":6,"id":7,"method":"ping"}"#.utf8)
            let duplicateEscaped = Array(#"{"jsonrpc":"2.0","id":8,"method":"ping","params":{"a":1,"\u0061":2}}"#.utf8)
            let answers = try answersBeforePing(client, [nested, deepObject, hugeId, hugeAmount, duplicate, duplicateEscaped])
            let codes = answers.map { answer -> Int in
                if case .response(_, .failure(let error)) = answer { return error.code }
                return 0
            }
            #expect(codes == [-32700, -32700, -32700, -32700, -32600, -32600])
            // Nothing was applied by the push whose amount had 10,000 digits.
            try client.send(RawClient.request(id: 10, method: "pull", params: #"{"since":0}"#))
            #expect(try PullResult(json: try #require(try client.receiveResult()).result).changes.isEmpty)
            #expect(try harness.stillServes())
        }
    }

    @Test func oneMebibyteStringsAreRefusedAndMemoryStaysBounded() async throws {
        try await withLedgerServer { harness in
            // No other test inflates or measures this process's memory meanwhile.
            try ResidentMemory.exclusively {
                let before = ResidentMemory.bytes
                let client = try harness.greetedClient()
                // Just under the line limit: parsed, the mutation alone is rejected (note over 300 characters).
                let envelope = #"{"jsonrpc":"2.0","id":3,"method":"push","params":{"mutations":[{"mutationId":1,"type":"put","id":"\#(UUID())","baseVersion":0,"fields":{"amount":1,"category":"x","date":"2026-01-01","note":""}}]}}"#
                let note = String(repeating: "n", count: 1_048_576 - envelope.utf8.count)
                for round in 1...8 {
                    try client.send(envelope.replacingOccurrences(of: #""note":"""#, with: #""note":"\#(note)""#)
                        .replacingOccurrences(of: #""mutationId":1"#, with: #""mutationId":\#(round)"#))
                    let result = try PushResult(json: try #require(try client.receiveResult()).result)
                    guard case .rejected(let rejection)? = result.results.first?.status else {
                        Issue.record("a 1 MiB note was not rejected: \(result)")
                        return
                    }
                    #expect(rejection.reason == "note_too_long")
                }
                // A 1 MiB string value makes the line longer than 1 MiB: −32002, then close.
                let over = try RawClient(harness.server)
                try over.send(LedgerServerHarness.hello(token: harness.token))
                _ = try over.receive()
                try? over.send(RawClient.request(id: 2, method: "ping", params: #"{"pad":"\#(String(repeating: "p", count: 1 << 20))"}"#))
                #expect(try over.receiveError()?.error.code == -32002)
                #expect(try over.receive() == nil)
                #expect(try harness.stillServes())
                let growth = ResidentMemory.bytes - before
                #expect(growth < 256 << 20, "resident memory grew by \(growth >> 20) MiB after nine 1 MiB lines")
            }
        }
    }

    @Test func aPushOfAThousandRejectedMutationsIsAnsweredInFull() async throws {
        try await withLedgerServer { harness in
            let client = try harness.greetedClient()
            let mutations = (1...1000).map { index in
                #"{"mutationId":\#(index),"type":"put","id":"\#(UUID())","baseVersion":0,"fields":{"amount":-\#(index),"category":"x","date":"2026-01-01"}}"#
            }
            try client.send(RawClient.request(id: 2, method: "push", params: #"{"mutations":[\#(mutations.joined(separator: ","))]}"#))
            let result = try PushResult(json: try #require(try client.receiveResult()).result)
            #expect(result.results.count == 1000)
            #expect(result.results.allSatisfy { if case .rejected(let r) = $0.status { r.reason == "invalid_amount" } else { false } })
            #expect(result.cursor == 0)
            let more = (1...1001).map { #"{"mutationId":\#($0),"type":"delete","id":"\#(UUID())","baseVersion":1}"# }
            try client.send(RawClient.request(id: 3, method: "push", params: #"{"mutations":[\#(more.joined(separator: ","))]}"#))
            #expect(try client.receiveError()?.error.reason == "batch_too_large")
            #expect(try harness.stillServes())
        }
    }

    @Test func requestsAfterAFailedHelloAreRefused() async throws {
        try await withLedgerServer { harness in
            // Bad params: −32602, the connection stays open, every other method is still −32001.
            let client = try RawClient(harness.server)
            try client.send(#"{"jsonrpc":"2.0","id":1,"method":"hello","params":{"protocol":1}}"#)
            #expect(try client.receiveError()?.error.code == RPCError.invalidParamsCode)
            for (index, method) in ["push", "pull", "summary", "ping"].enumerated() {
                try client.send(RawClient.request(id: 10 + index, method: method, params: #"{"mutations":[]}"#))
                #expect(try client.receiveError()?.error.code == -32001)
            }
            // A wrong token: −32001 and closed; the requests pipelined behind it are never executed.
            let wrong = try RawClient(harness.server)
            let push = #"{"jsonrpc":"2.0","id":3,"method":"push","params":{"mutations":[{"mutationId":1,"type":"put","id":"\#(UUID())","baseVersion":0,"fields":{"amount":1,"category":"x","date":"2026-01-01"}}]}}"#
            try wrong.send(LedgerServerHarness.hello(token: String(repeating: "0", count: 64)) + "\n" + push)
            #expect(try wrong.receiveError()?.error.code == -32001)
            #expect(try wrong.receive() == nil)
            let reader = try harness.greetedClient()
            try reader.send(RawClient.request(id: 2, method: "pull", params: #"{"since":0}"#))
            #expect(try PullResult(json: try #require(try reader.receiveResult()).result).changes.isEmpty)
        }
    }

    @Test func slowlorisIsClosedAtTheHelloTimeoutWhileOthersAreServed() async throws {
        try await withLedgerServer({ $0.helloTimeout = .milliseconds(300) }) { harness in
            let slow = try RawClient(harness.server)
            let hello = Array(LedgerServerHarness.hello(token: harness.token).utf8)
            let start = ContinuousClock.now
            var sent = 0
            // One byte every 20 ms: the hello would take ~5 s; the daemon must cut it at ~300 ms.
            while sent < hello.count, ContinuousClock.now - start < .seconds(10) {
                do { try slow.connection.write([hello[sent]]) } catch { break }
                sent += 1
                if sent == 3 { #expect(try harness.stillServes()) }
                usleep(20_000)
            }
            #expect(sent < hello.count, "the trickled hello was allowed to complete")
            #expect(try slow.receive() == nil)
            #expect(harness.log.all.contains { $0.contains("no hello within") })
            #expect(try harness.stillServes())
        }
    }

    @Test func aClientThatNeverReadsIsClosedPastItsOutputLimit() async throws {
        try await withLedgerServer({ $0.outputLimit = 256 * 1024 }) { harness in
            let writer = try harness.greetedClient()
            let mutations = (1...200).map {
                #"{"mutationId":\#($0),"type":"put","id":"\#(UUID())","baseVersion":0,"fields":{"amount":\#($0),"category":"padding","date":"2026-01-01","note":"\#(String(repeating: "z", count: 200))"}}"#
            }
            try writer.send(RawClient.request(id: 2, method: "push", params: #"{"mutations":[\#(mutations.joined(separator: ","))]}"#))
            _ = try writer.receiveResult()
            // No other test inflates or measures this process's memory meanwhile.
            try ResidentMemory.exclusively {
                let before = ResidentMemory.bytes
                let greedy = try harness.greetedClient()
                // 2,000 pulls of ~60 KB each: ~120 MB of answers it never reads.
                var requests: [UInt8] = []
                for id in 0..<2000 { requests += Array(RawClient.request(id: 100 + id, method: "pull", params: #"{"since":0}"#).utf8) + [0x0A] }
                try? greedy.connection.write(requests)
                let deadline = ContinuousClock.now + .seconds(30)
                while !harness.log.all.contains(where: { $0.contains("unread; closing") }), ContinuousClock.now < deadline {
                    usleep(10_000)
                }
                #expect(harness.log.all.contains { $0.contains("unread; closing") })
                var answered = 0
                while (try? greedy.receive()) != nil { answered += 1 }
                #expect(answered < 2000)
                #expect(ResidentMemory.bytes - before < 128 << 20)
            }
            #expect(try harness.stillServes())
        }
    }
}
