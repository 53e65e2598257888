import Testing
import TestSupport
@testable import ExpenseProtocol

@Suite struct FuzzTests {
    /// Random bytes and mutated valid requests: never a crash; every accepted input writes back to JSON that
    /// parses to the same value; every request line gets either a request or a one-line error.
    @Test func randomInputsNeverCrash() throws {
        var random = SeededGenerator(seed: 20_261_130)
        let alphabet = Array(#"{}[]":,.-+eE0123456789 \tnulltruefalse\u00e9\ud83d"#.utf8) + [0x0A, 0x0D, 0x00, 0x80, 0xC3, 0xA9, 0xED, 0xF4, 0xFF]
        let seeds = [
            #"{"jsonrpc":"2.0","id":1,"method":"push","params":{"mutations":[{"mutationId":1,"type":"put","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","baseVersion":0,"fields":{"amount":1250,"category":"food","date":"2026-11-30"}}]}}"#,
            #"{"jsonrpc":"2.0","id":"x","method":"summary","params":{"from":"2026-01-01","groupBy":"month"}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"hello","params":{"protocol":1,"ledger":"default","token":"t","clientId":"6f9619ff-8b86-d011-b42d-00cf4fc964ff"}}"#,
        ].map { Array($0.utf8) }
        var accepted = 0
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int.random(in: 0...64, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? 0 }
            } else {
                bytes = seeds[round % seeds.count]
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let index = Int.random(in: 0..<bytes.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: bytes[index] = UInt8.random(in: 0...255, using: &random)
                    case 1: bytes.remove(at: index)
                    default: bytes.insert(alphabet.randomElement(using: &random) ?? 0, at: index)
                    }
                    if bytes.isEmpty { break }
                }
            }
            if let value = try? JSONParser.parse(bytes) {
                accepted += 1
                #expect(try JSONParser.parse(value.jsonBytes) == value)
            }
            switch RPCRequest.parse(bytes) {
            case .success(let request):
                switch request.method {
                case "push": _ = try? PushRequest(params: request.params)
                case "summary": _ = try? SummaryRequest(params: request.params)
                case "hello": _ = try? HelloRequest(params: request.params)
                default: break
                }
            case .failure(let failure):
                let line = failure.responseLine
                #expect(line.last == 0x0A && !line.dropLast().contains(0x0A))
            }
        }
        #expect(accepted > 100)
    }
}
