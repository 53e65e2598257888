import TestSupport
import Testing
@testable import ExpenseProtocol

/// `PingLine`, the daemon's `ping` fast path, against the general reader (`RPCRequest.parseGenerally`) and the
/// general encoder (`RPCResponse.success`): a line it takes is a `ping` with that id and no params on the general
/// path, and its answer is byte for byte the general one; the forms clients send are taken.
@Suite struct PingLineTests {
    /// Lines the fast path must take (the bench's, the CLI's, the protocol document's, and whitespace/order variants).
    private static let taken: [String] = [
        #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"ping","params":{}}"#,
        #"{"jsonrpc":"2.0","id":0,"method":"ping","params":null}"#,
        #"{"jsonrpc":"2.0","id":-12,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":-0,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":"a-1","method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":"","method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":"with space / and <>~","method":"ping"}"#,
        #" { "method" : "ping" , "id" : 3 , "jsonrpc" : "2.0" , "params" : { } } "#,
        "{\t\"params\":{},\r\"id\":4,\n\"method\":\"ping\",\"jsonrpc\":\"2.0\"}",
        #"{"id":5,"jsonrpc":"2.0","method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":-"# + String(repeating: "7", count: JSONParser.maximumNumberLength - 1) + #","method":"ping"}"#,
    ]

    /// Lines the fast path must leave to the general path (valid or not).
    private static let left: [String] = [
        #"{"jsonrpc":"2.0","method":"ping"}"#,  // a notification
        #"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":-"# + String(repeating: "7", count: JSONParser.maximumNumberLength) + #","method":"ping"}"#,  // too long
        #"{"jsonrpc":"2.0","id":"# + String(repeating: "7", count: 10_000) + #","method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":1e3,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":01,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":-,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":"a\"b","method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":"a\u0062","method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":"é","method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"pull"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"pingx"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"p\u0069ng"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":1}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"ping","params":5}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"ping","params":nul}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"ping","extra":1}"#,
        #"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"ping","method":"ping"}"#,
        #"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
        #"{"jsonrpc":2.0,"id":1,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":1}"#,
        #"{"id":1,"method":"ping"}"#,
        #"{"j\u0073onrpc":"2.0","id":1,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#,
        #"{"jsonrpc":"2.0","id":1,"method":"ping"}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"ping",}"#,
        #"{"jsonrpc":"2.0","id":1 "method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"ping""#,
        #"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
        "{\u{0B}\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",  // a vertical tab is not JSON whitespace
        "{}", "", " ", "{", "nonsense",
    ]

    private static let cursors: [Int64] = [0, 1, 9, 10, 99, 100, 4_096, 1_234_567_890, Int64.max, -1, Int64.min]

    /// Checks one line: taken only when the general path reads a `ping` with that id and no params, and then the
    /// answer is the general encoding. Returns whether it was taken.
    @discardableResult
    private static func check(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        bytes.withUnsafeBufferPointer { line in
            guard let range = PingLine.idRange(in: line) else { return false }
            guard case .success(let request) = RPCRequest.parseGenerally(line), let id = request.id else {
                Issue.record("taken, but not a request with an id: \(String(decoding: bytes, as: UTF8.self))",
                             sourceLocation: sourceLocation)
                return true
            }
            #expect(request.method == PingRequest.method, sourceLocation: sourceLocation)
            #expect(request.params == nil || request.params == .object([:]), sourceLocation: sourceLocation)
            #expect((try? PingRequest(params: request.params)) != nil, sourceLocation: sourceLocation)
            for cursor in cursors {
                var answer: [UInt8] = [0x41]  // appended after what is there
                PingLine.appendAnswer(id: UnsafeBufferPointer(rebasing: line[range]), cursor: cursor, to: &answer)
                #expect(answer == [0x41] + RPCResponse.success(id: id, result: CursorResult(cursor: cursor)),
                        "\(String(decoding: bytes, as: UTF8.self)) at \(cursor)", sourceLocation: sourceLocation)
            }
            return true
        }
    }

    @Test func theFormsClientsSendAreTakenAndAnsweredAsTheGeneralPathDoes() {
        for line in Self.taken {
            #expect(Self.check(Array(line.utf8)), "\(line)")
        }
    }

    @Test func everythingElseIsLeftToTheGeneralPath() {
        for line in Self.left {
            #expect(!Self.check(Array(line.utf8)), "\(line)")
        }
    }

    @Test func seededMutationsAreTakenOnlyWhenTheGeneralPathReadsAPing() {
        var random = SeededGenerator(seed: 0x1616)
        let alphabet = Array(#"{}[]":,\ 0123456789.-eE+truefalsnjsonrpcidmethodparamsping"#.utf8) + [0x09, 0x0A, 0x0D, 0x7F, 0xC3]
        let corpus = Self.taken + Self.left
        var taken = 0
        for _ in 0..<6000 {
            let bytes = random.mutated(Array(corpus[Int.random(in: 0..<corpus.count, using: &random)].utf8), alphabet: alphabet, truncating: false)
            if Self.check(bytes) { taken += 1 }
        }
        #expect(taken > 20, "some mutations should still hit the fast path (\(taken))")
    }

    @Test func decimalsAreWrittenInPlace() {
        for value in Self.cursors + [1_000, 999, 1_000_000_000_000_000_000, 999_999_999_999_999_999] {
            var bytes: [UInt8] = []
            PingLine.appendDecimal(value, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == String(value))
            #expect(PingLine.decimalLength(value) == String(value).utf8.count, "\(value)")
        }
    }
}
