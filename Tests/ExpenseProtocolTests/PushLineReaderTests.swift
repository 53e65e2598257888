import Foundation
import TestSupport
import Testing
@testable import ExpenseProtocol

/// The daemon's push fast path (`RPCRequest.parseDecodingPush`, `PushLineReader`) against the general path
/// (`RPCRequest.parseGenerally`, then `PushRequest(params:)`): the same request, the same push (every item, every
/// per-mutation refusal with its reason, field and message) or the same error, for every line of a corpus and for
/// seeded mutations of it.
@Suite struct PushLineReaderTests {
    private static let id = "1b080588-94c4-4b6c-9a8e-3f1d2c3b4a59"

    private static func put(_ mutationId: String = "1", fields: String = #"{"amount":1250,"currency":"USD","category":"food","date":"2026-11-30","note":"lunch"}"#,
                            extra: String = "") -> String {
        #"{"mutationId":\#(mutationId),"type":"put","id":"\#(id)","baseVersion":0,"fields":\#(fields)\#(extra)}"#
    }

    private static func line(_ mutations: [String], id: String = "7") -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"push","params":{"mutations":[\#(mutations.joined(separator: ","))]}}"#
    }

    private static let corpus: [String] = {
        var lines = [
            line([put()]),
            line([]),
            line([put("1"), put("2"), put("3")]),
            // The Swift client's order (sorted keys) and other orders, whitespace, escapes.
            #"{"id":3,"jsonrpc":"2.0","method":"push","params":{"mutations":[{"baseVersion":0,"fields":{"amount":5,"category":"x","date":"2026-01-05"},"id":"\#(id)","mutationId":4,"type":"put"}]}}"#,
            #" { "jsonrpc" : "2.0" , "id" : "a-1" , "method" : "push" , "params" : { "mutations" : [ { "mutationId" : 1 , "type" : "delete" , "id" : "\#(id)" , "baseVersion" : 2 } ] } } "#,
            #"{"jsonrpc":"2.0","id":1,"method":"p\u0075sh","params":{"m\u0075tations":[{"\u006dutationId":1,"type":"put","id":"\#(id.uppercased())","baseVersion":0,"fields":{"category":"caf\u00e9","note":"e\u0301"}}]}}"#,
            #"{"jsonrpc":"2.0","id":1,"params":{"mutations":[]},"method":"push"}"#,
            #"{"method":"push","jsonrpc":"2.0","id":1.5e3,"params":{"mutations":[]}}"#,
            // Field values the ledger refuses (the same Mutation reaches it either way).
            line([put(fields: #"{"amount":12.50}"#), put("2", fields: #"{"amount":1e3}"#), put("3", fields: #"{"amount":"12"}"#),
                  put("4", fields: #"{"amount":0}"#), put("5", fields: #"{"amount":-1}"#), put("6", fields: #"{"amount":9007199254740992}"#),
                  put("7", fields: #"{"amount":99999999999999999999999}"#), put("8", fields: #"{"amount":null}"#),
                  put("9", fields: #"{"currency":"usd","date":"2026-02-30","category":7,"note":false}"#),
                  put("10", fields: #"{"colour":"red","amount":1}"#), put("11", fields: #"{"category":"cafe\u0301","note":"\u001b[31m"}"#),
                  put("12", fields: #"{"note":"\#(String(repeating: "n", count: 1300))"}"#), put("13", fields: "{}")]),
            // Shapes refused per mutation.
            line([#"{"mutationId":1,"type":"patch","id":"\#(id)","baseVersion":0,"fields":{}}"#,
                  #"{"mutationId":2,"type":"put","id":"\#(id)","baseVersion":-1,"fields":{}}"#,
                  #"{"mutationId":3,"type":"put","id":"\#(id)","baseVersion":1.0,"fields":{}}"#,
                  #"{"mutationId":4,"type":"put","id":"\#(id)","baseVersion":0}"#,
                  #"{"mutationId":5,"type":"put","id":"\#(id)","baseVersion":0,"fields":[1]}"#,
                  #"{"mutationId":6,"type":"delete","id":"\#(id)","baseVersion":1,"fields":{}}"#,
                  #"{"mutationId":7,"type":"delete","id":"\#(id)","baseVersion":1,"fields":null}"#,
                  #"{"mutationId":8,"type":"put","id":"not-a-uuid","baseVersion":0,"fields":{}}"#,
                  #"{"mutationId":9,"type":"put","id":42,"baseVersion":0,"fields":{}}"#,
                  #"{"mutationId":10,"type":"put","baseVersion":0,"fields":{}}"#,
                  #"{"mutationId":11,"type":"put","id":"\#(id)","baseVersion":0,"fields":{},"kind":"budget"}"#,
                  #"{"mutationId":12,"type":"put","id":"\#(id)","baseVersion":0,"fields":{},"kind":"nonsense"}"#,
                  #"{"mutationId":13,"type":"put","id":"\#(id)","baseVersion":0,"fields":{},"ifAbsent":true}"#,
                  #"{"mutationId":14,"type":"put","id":"\#(id)","baseVersion":1,"fields":{},"ifAbsent":true}"#,
                  #"{"mutationId":15,"type":"put","id":"\#(id)","baseVersion":0,"fields":{},"ifAbsent":"yes"}"#,
                  #"{"mutationId":16,"type":null,"id":"\#(id)","baseVersion":0,"fields":{}}"#,
                  #"{"mutationId":17,"type":"put","id":"\#(id)\u0000","baseVersion":0,"fields":{}}"#]),
            // Whole-push errors and unusual lines: the general path decides them.
            line([#"{"type":"put","id":"\#(id)","baseVersion":0,"fields":{}}"#]),
            line([#"{"mutationId":0,"type":"put","id":"\#(id)","baseVersion":0,"fields":{}}"#]),
            line([#"{"mutationId":"1","type":"put","id":"\#(id)","baseVersion":0,"fields":{}}"#]),
            line([#"{"mutationId":1.0,"type":"put","id":"\#(id)","baseVersion":0,"fields":{}}"#]),
            line(["[]", put("2")]), line(["1"]), line(["null"]),
            line([put(extra: #","note":"x""#)]),
            line([put(extra: #","mutationId":2"#)]),
            line([put(fields: #"{"amount":1,"amount":2}"#)]),
            // The fields object read member by member: other kinds' members, nesting, escapes, spacing, duplicates.
            line([put(fields: #"{"limit":5,"period":{"every":[1,{"x":null}]},"category":"food"}"#),
                  put("2", fields: #" { "amount" : 7 , "note" : "" , "currency":"EUR" } "#),
                  put("3", fields: #"{"":1,"amount ":2,"Amount":3}"#)]),
            line([put(fields: #"{"colour":1,"colour":2}"#)]),
            // Keys the fast path reads as bytes: one written with an escape or above ASCII sends the line the general
            // way, which must still see `amount` twice, and an escaped `amount` as the amount.
            line([put(fields: #"{"am\u006funt":1}"#)]), line([put(fields: #"{"amount":1,"am\u006funt":2}"#)]),
            line([put(fields: #"{"cöl":1,"c\u00f6l":2}"#)]), line([put(fields: #"{"cöl":"x","note":"y"}"#)]),
            line([#"{"mutationId":1,"typ\u0065":"delete","id":"\#(id)","baseVersion":1}"#]),
            #"{"jsonrpc":"2.0","\u0069d":1,"method":"push","params":{"mutations":[]}}"#,
            line([put(fields: #"{"note\u0000":1}"#)]),
            // Ids read as UUIDs straight from their bytes, and 36-byte strings that are none.
            line([#"{"mutationId":1,"type":"delete","id":"\#(id.uppercased())","baseVersion":1}"#,
                  #"{"mutationId":2,"type":"delete","id":"1b080588-94c4-4b6c-9a8e-3f1d2c3b4a5g","baseVersion":1}"#,
                  #"{"mutationId":3,"type":"delete","id":"1b080588+94c4-4b6c-9a8e-3f1d2c3b4a59","baseVersion":1}"#,
                  #"{"mutationId":4,"type":"delete","id":"1b080588-94c4-4b6c-9a8e-3f1d2c3b4a5\u0039","baseVersion":1}"#,
                  #"{"mutationId":5,"type":"delete","id":"1b080588-94c4-4b6c-9a8e-3f1d2c3b4a590","baseVersion":1}"#,
                  #"{"mutationId":6,"type":"delete","id":"","baseVersion":1}"#,
                  #"{"mutationId":7,"type":"delete","id":"1b080588-94c4-4b6c-9a8e-3f1d2c3b4a59"#]),
            line([put(fields: #"{"note":"a","note":"b"}"#)]),
            line([put(fields: #"{"amount":1,}"#)]), line([put(fields: #"{"amount" 1}"#)]), line([put(fields: #"{"amount":1"#)]),
            line([#"{"mutationId":1,"type":"delete","id":"\#(id)","baseVersion":1,"fields":{"amount":1}}"#]),
            line([put(extra: #","fields":{}"#)]),
            #"{"jsonrpc":"2.0","id":1,"method":"push","params":{"mutations":{}}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"push","params":{"mutations":null}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"push","params":{}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"push","params":{"mutations":[],"extra":1}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"push","params":{"mutations":[],"mutations":[]}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"push","params":[]}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"push","params":null}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"push"}"#,
            #"{"jsonrpc":"1.0","id":1,"method":"push","params":{"mutations":[]}}"#,
            #"{"id":1,"method":"push","params":{"mutations":[]}}"#,
            #"{"jsonrpc":"2.0","id":true,"method":"push","params":{"mutations":[]}}"#,
            #"{"jsonrpc":"2.0","method":"push","params":{"mutations":[]}}"#,
            #"{"jsonrpc":"2.0","id":1,"id":2,"method":"push","params":{"mutations":[]}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"push","params":{"mutations":[]},"extra":1}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"push","params":{"mutations":[]}} x"#,
            #"{"jsonrpc":"2.0","id":1,"method":"push","params":{"mutations":[],}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"push","params":{"mutations":[}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"pull","params":{"since":0}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            line([put(fields: #"{"amount":"# + String(repeating: "[", count: 59) + String(repeating: "]", count: 59) + "}")]),
            line([put(fields: #"{"amount":"# + String(repeating: "[", count: 60) + String(repeating: "]", count: 60) + "}")]),
            line([put(fields: #"{"amount":"# + String(repeating: "[", count: 61) + String(repeating: "]", count: 61) + "}")]),
            "{", "", "[]", #"{"jsonrpc":"2.0","id":1,"method":"push","params":{"mutations":["#,
        ]
        lines.append(line((1...PushRequest.maximumMutations).map { put(String($0)) }))
        lines.append(line((1...PushRequest.maximumMutations + 1).map { put(String($0)) }))
        return lines
    }()

    /// What the daemon makes of a line: the request's envelope and its push (or the error), or the failure.
    private struct Reading: Equatable {
        var id: RequestID?
        var method: String?
        var push: Result<PushRequest, RPCError>?
        var failure: RPCRequestFailure?
    }

    private static func reading(_ result: Result<RPCRequest, RPCRequestFailure>, push: (RPCRequest) -> Result<PushRequest, RPCError>) -> Reading {
        switch result {
        case .success(let request): Reading(id: request.id, method: request.method, push: push(request))
        case .failure(let failure): Reading(failure: failure)
        }
    }

    private static func bothPaths(_ bytes: [UInt8]) -> (fast: Reading, general: Reading) {
        let fast = reading(RPCRequest.parseDecodingPush(bytes[...])) { request in
            Result { () throws(RPCError) in try request.pushRequest() }
        }
        let general = bytes.withUnsafeBufferPointer { buffer in
            reading(RPCRequest.parseGenerally(buffer)) { request in
                Result { () throws(RPCError) in try PushRequest(params: request.params) }
            }
        }
        return (fast, general)
    }

    @Test func theCorpusReadsTheSameOnBothPaths() {
        for line in Self.corpus {
            let (fast, general) = Self.bothPaths(Array(line.utf8))
            #expect(fast == general, "\(line.prefix(300))")
        }
    }

    @Test func seededMutationsReadTheSameOnBothPaths() {
        var random = SeededGenerator(seed: 0x16D)
        let alphabet = Array(#"{}[]":,\ 0123456789.-eE+truefalsnpushmutationIdtypebaseVersionfieldsamountkindifAbsent"#.utf8)
        let sources = Self.corpus.filter { $0.utf8.count < 4000 }
        for _ in 0..<4000 {
            let bytes = random.mutated(Array(sources[Int.random(in: 0..<sources.count, using: &random)].utf8), alphabet: alphabet)
            let (fast, general) = Self.bothPaths(bytes)
            #expect(fast == general, "\(String(decoding: bytes, as: UTF8.self).prefix(300))")
        }
    }

    /// The fast path is taken for the lines it exists for (a stub returning `nil` would pass the tests above),
    /// and never for another method.
    @Test func plainPushesTakeTheFastPathAndNothingElseDoes() throws {
        // Plain pushes in the Python client's order and the Swift client's, with whitespace, refused field values
        // and refused shapes (not an escaped method name, nor params before method: those are general).
        let fast = [0, 1, 2, 3, 4, 8, 9].map { Self.corpus[$0] } + [Self.corpus[Self.corpus.count - 2]]
        for line in fast {
            let request = Array(line.utf8).withUnsafeBufferPointer { PushLineReader.read($0) }
            guard case .decodedPush? = request?.payload else {
                Issue.record("not decoded on the fast path: \(line.prefix(200))")
                continue
            }
        }
        let thousand = try #require(Array(Self.corpus[Self.corpus.count - 2].utf8).withUnsafeBufferPointer { PushLineReader.read($0) })
        #expect(try thousand.pushRequest().items.count == PushRequest.maximumMutations)
        for line in [#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, #"{"jsonrpc":"2.0","id":1,"method":"pull","params":{"since":0}}"#,
                     Self.corpus[Self.corpus.count - 1]] {
            #expect(Array(line.utf8).withUnsafeBufferPointer { PushLineReader.read($0) } == nil, "\(line.prefix(200))")
        }
    }
}
