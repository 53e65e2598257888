import TestSupport
import Testing
@testable import ExpenseProtocol

/// The `applied` answer, written with fixed fragments, against the same object written member by member as a
/// JSON value (keys sorted): byte for byte, on seeded and extreme numbers, alone and inside a push result.
@Suite struct MutationResultBytesTests {
    private static func reference(_ mutationId: Int64, version: Int64, seq: Int64) -> [UInt8] {
        var writer = JSONWriter()
        writer.value(.object(["mutationId": .number(JSONNumber(mutationId)), "seq": .number(JSONNumber(seq)),
                              "status": .string("applied"), "version": .number(JSONNumber(version))]))
        return writer.bytes
    }

    @Test func anAppliedAnswerIsTheBytesOfItsMembers() {
        var random = SeededGenerator(seed: 0xA991)
        let extremes: [Int64] = [0, 1, 9, 10, -1, Int64.max, Int64.min, 1_000_000]
        var triples = extremes.flatMap { first in extremes.map { (first, $0, Int64(extremes.count) - $0 % 7) } }
        for _ in 0..<2000 {
            triples.append((Int64.random(in: 1...Int64.max, using: &random) >> Int.random(in: 0...62, using: &random),
                            Int64.random(in: 1...1000, using: &random), Int64.random(in: 0...Int64.max, using: &random)))
        }
        for (mutationId, version, seq) in triples {
            var writer = JSONWriter()
            MutationResult(mutationId: mutationId, status: .applied(version: version, seq: seq)).write(to: &writer)
            #expect(writer.bytes == Self.reference(mutationId, version: version, seq: seq))
        }
        // Inside a push result, after another result: the comma comes from the array.
        var writer = JSONWriter()
        PushResult(results: [MutationResult(mutationId: 1, status: .applied(version: 1, seq: 2)),
                             MutationResult(mutationId: 2, status: .applied(version: 3, seq: 4))], cursor: 4).write(to: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self)
            == #"{"cursor":4,"results":[{"mutationId":1,"seq":2,"status":"applied","version":1},{"mutationId":2,"seq":4,"status":"applied","version":3}]}"#)
    }
}
