import ExpenseCore
import ExpenseProtocol
import ExpenseTransport
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// The short, seeded version of `Scripts/fuzz` (which runs libFuzzer for a bounded time): random and mutated
/// input through line framing (in random chunks) and request decoding, in-process and over the wire.
@Suite(.serialized) struct HostileFuzzTests {
    static let seeds: [[UInt8]] = [
        #"{"jsonrpc":"2.0","id":1,"method":"push","params":{"mutations":[{"mutationId":1,"type":"put","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","baseVersion":0,"fields":{"amount":1250,"currency":"EUR","category":"food","date":"2026-11-30","note":"caf\u00e9"}},{"mutationId":2,"type":"delete","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","baseVersion":1}]}}"#,
        #"{"jsonrpc":"2.0","id":"x","method":"summary","params":{"from":"2026-01-01","to":"2026-12-31","groupBy":"month"}}"#,
        #"{"jsonrpc":"2.0","id":2,"method":"pull","params":{"since":0,"limit":10}}"#,
        #"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
    ].map { Array($0.utf8) }
    static let alphabet = Array(#"{}[]":,.-+eE0123456789 \tnulltruefalse\u00e9\ud83d"#.utf8) + [0x0D, 0x00, 0x80, 0xC3, 0xA9, 0xED, 0xF4, 0xFF]

    /// A random line: raw bytes, or a seed with a few byte flips, deletions, insertions or splices.
    static func input(_ round: Int, _ random: inout SeededGenerator) -> [UInt8] {
        if round % 3 == 0 {
            return (0..<Int.random(in: 0...80, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? 0 }
        }
        var bytes = seeds[round % seeds.count]
        for _ in 0..<Int.random(in: 1...6, using: &random) where !bytes.isEmpty {
            let index = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: bytes[index] = UInt8.random(in: 0...255, using: &random)
            case 1: bytes.remove(at: index)
            case 2: bytes.insert(alphabet.randomElement(using: &random) ?? 0, at: index)
            default:
                let other = seeds.randomElement(using: &random) ?? []
                let cut = Int.random(in: 0..<other.count, using: &random)
                bytes = Array(bytes[..<index]) + other[cut...]
            }
        }
        return bytes
    }

    @Test func framingAndDecodingOfRandomInputInRandomChunks() {
        var random = SeededGenerator(seed: 0xF022_2026)
        var requests = 0
        for round in 0..<5000 {
            let maximum = Int.random(in: 16...512, using: &random)
            var framer = LineFramer(maximumLineLength: maximum)
            var stream: [UInt8] = []
            for index in 0..<Int.random(in: 1...5, using: &random) { stream += Self.input(round * 5 + index, &random) + [0x0A] }
            var offset = 0
            var finished = false
            while offset < stream.count, !finished {
                let end = min(stream.count, offset + Int.random(in: 1...64, using: &random))
                framer.append(contentsOf: stream[offset..<end])
                offset = end
                while let next = framer.nextLine() {
                    guard case .line(let line) = next else { finished = true; break }
                    #expect(line.count <= maximum)
                    #expect(!line.contains(0x0A))
                    switch RPCRequest.parse(line) {
                    case .success(let request):
                        requests += 1
                        if request.method == "push", let push = try? PushRequest(params: request.params) {
                            for item in push.items {
                                if case .success(let mutation) = item.decoded, let fields = mutation.fields,
                                   case .success(let draft) = ExpenseFields.draft(from: fields) {
                                    _ = try? ExpenseValidator.validate(draft)
                                }
                            }
                        }
                        _ = try? SummaryRequest(params: request.params)
                        _ = try? PullRequest(params: request.params)
                    case .failure(let failure):
                        let answer = failure.responseLine
                        #expect(answer.last == 0x0A && !answer.dropLast().contains(0x0A))
                    }
                }
            }
        }
        #expect(requests > 200)  // the mutations leave enough valid requests to reach the decoders
    }

    @Test func mutatedRequestsOverTheWireAreEachAnsweredAndTheDaemonServesOn() async throws {
        try await withLedgerServer { harness in
            let client = try harness.greetedClient()
            var random = SeededGenerator(seed: 0x5EED_0006)
            let lines = (0..<600).map { Self.input($0, &random).filter { $0 != 0x0A } }
            var bytes: [UInt8] = []
            for line in lines { bytes += line + [0x0A] }
            bytes += Array(#"{"jsonrpc":"2.0","id":"fuzz-end","method":"ping"}"#.utf8) + [0x0A]
            try client.connection.write(bytes)
            var answers = 0
            var ended = false
            while let answer = try client.receive() {
                if case .response(.string("fuzz-end")?, .success) = answer { ended = true; break }
                answers += 1
            }
            #expect(ended, "the connection closed before the last ping was answered")
            #expect(answers > 300)
            #expect(try harness.stillServes())
        }
    }
}
