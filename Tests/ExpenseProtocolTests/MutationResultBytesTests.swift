import ExpenseCore
import TestSupport
import Testing
@testable import ExpenseProtocol

/// The `applied` answer, written with fixed fragments, against the same object written member by member as a
/// JSON value (keys sorted): byte for byte, on seeded and extreme numbers, with and without the record as stored,
/// alone and inside a push result.
@Suite struct MutationResultBytesTests {
    private static func reference(_ mutationId: Int64, version: Int64, seq: Int64, record: JSONValue? = nil) -> [UInt8] {
        var members: [String: JSONValue] = ["mutationId": .number(JSONNumber(mutationId)), "seq": .number(JSONNumber(seq)),
                                            "status": .string("applied"), "version": .number(JSONNumber(version))]
        members["record"] = record
        var writer = JSONWriter()
        writer.value(.object(members))
        return writer.bytes
    }

    @Test func anAppliedAnswerIsTheBytesOfItsMembers() throws {
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
        // With the record as stored, an expense's and another kind's, a tombstone among them.
        for (index, (mutationId, version, seq)) in triples.enumerated() where version >= 1 && seq >= 0 {
            let record: AppliedRecord
            if index % 2 == 0 {
                let expense = try Fixtures.expense(amount: 1 + abs(mutationId % 1_000_000),
                                                   note: index % 3 == 0 ? "" : "nöte \"\(index)\"\n")
                record = .expense(Record(expense: expense, version: version, seq: seq, deleted: index % 4 == 0))
            } else {
                record = .data(DataRecord(kind: .setting, id: LedgerSetting.id(.timezone),
                                          fields: ["name": .text("timezone"), "value": .text("Europe/Berlin")],
                                          version: version, seq: seq, deleted: index % 3 == 0))
            }
            var writer = JSONWriter()
            MutationResult(mutationId: mutationId, status: .applied(version: version, seq: seq), record: record).write(to: &writer)
            var recordWriter = JSONWriter()
            record.write(to: &recordWriter)
            #expect(writer.bytes == Self.reference(mutationId, version: version, seq: seq,
                                                   record: try JSONParser.parse(recordWriter.bytes)))
        }
        // Inside a push result, after another result: the comma comes from the array.
        var writer = JSONWriter()
        PushResult(results: [MutationResult(mutationId: 1, status: .applied(version: 1, seq: 2)),
                             MutationResult(mutationId: 2, status: .applied(version: 3, seq: 4))], cursor: 4).write(to: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self)
            == #"{"cursor":4,"results":[{"mutationId":1,"seq":2,"status":"applied","version":1},{"mutationId":2,"seq":4,"status":"applied","version":3}]}"#)
    }
}
