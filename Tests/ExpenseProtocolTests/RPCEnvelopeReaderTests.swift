import TestSupport
import Testing
@testable import ExpenseProtocol

/// The envelope fast path of `RPCRequest.parse` against the general reader (`RPCRequest.parseGenerally`): the
/// same result, success or failure, for every line of a corpus and for seeded mutations of it.
@Suite struct RPCEnvelopeReaderTests {
    private static let corpus: [String] = [
        #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"ping","params":{}}"#,
        #" { "method" : "pull" , "id" : "a-1" , "jsonrpc" : "2.0" } "#,
        #"{"jsonrpc":"2.0","id":1.50e3,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":-0,"method":"summary","params":null}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"ping","params":null,"extra":1}"#,
        #"{"jsonrpc":"2.0","method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"push","params":{"mutations":[{"a":1,"a":2}]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"push","params":{"mutations":[{"op":"create","id":"x","fields":{"amount":"12.50"}}]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1,2]}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"ping","params":5}"#,
        #"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":7}"#,
        #"{"jsonrpc":"2.0","id":1}"#,
        #"{"j\u0073onrpc":"2.0","\u0069d":3,"method":"p\u00eeng"}"#,
        #"{"jsonrpc":"2.0","id":"\ud83d\ude00","method":"ping"}"#,
        #"{}"#, "[]", "42", "null", #""ping""#, "{", "", "   ", "nonsense",
        #"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#,
        #"{"jsonrpc":"2.0","id":1,"method":"ping",}"#,
        #"{"jsonrpc":"2.0","id":01,"method":"ping"}"#,
        #"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
        #"{"jsonrpc":"2.0","id":1,"method":"ping","params":"# + String(repeating: "[", count: 70) + String(repeating: "]", count: 70) + "}",
        #"{"jsonrpc":"2.0","id":1,"method":"ping","params":"# + String(repeating: "[", count: 62) + String(repeating: "]", count: 62) + "}",
        #"{"jsonrpc":"2.0","id":1,"method":"ping","params":"# + String(repeating: "[", count: 63) + String(repeating: "]", count: 63) + "}",
    ]

    private static func bothPaths(_ bytes: [UInt8]) -> (fast: Result<RPCRequest, RPCRequestFailure>,
                                                        general: Result<RPCRequest, RPCRequestFailure>) {
        bytes.withUnsafeBufferPointer { (RPCRequest.parse($0), RPCRequest.parseGenerally($0)) }
    }

    @Test func theCorpusReadsTheSameOnBothPaths() {
        for line in Self.corpus {
            let (fast, general) = Self.bothPaths(Array(line.utf8))
            #expect(fast == general, "\(line)")
        }
    }

    @Test func seededMutationsReadTheSameOnBothPaths() {
        var random = SeededGenerator(seed: 0x9126)
        let alphabet = Array(#"{}[]":,\ 0123456789.-eE+truefalsnjsonrpcidmethodparams"#.utf8)
        for _ in 0..<4000 {
            let bytes = random.mutated(Array(Self.corpus[Int.random(in: 0..<Self.corpus.count, using: &random)].utf8), alphabet: alphabet)
            let (fast, general) = Self.bothPaths(bytes)
            #expect(fast == general, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    /// The fast path is taken for the lines it exists for (a stub returning `nil` would pass the tests above).
    @Test func plainRequestsTakeTheFastPath() {
        for line in [#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, #"{"jsonrpc":"2.0","id":"a","method":"push","params":{"mutations":[]}}"#] {
            let envelope = Array(line.utf8).withUnsafeBufferPointer { RPCEnvelopeReader.read($0) }
            #expect(envelope != nil, "\(line)")
        }
        let extra = Array(#"{"jsonrpc":"2.0","id":1,"method":"ping","extra":1}"#.utf8)
        #expect(extra.withUnsafeBufferPointer { RPCEnvelopeReader.read($0) } == nil)
    }
}
