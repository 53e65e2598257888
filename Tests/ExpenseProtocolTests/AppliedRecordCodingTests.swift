import ExpenseCore
import Foundation
import Testing
@testable import ExpenseProtocol

/// The `record` of an `applied` answer (Protocol.md §5.2): additive, in a pull page's record shape, absent from
/// a `duplicate`'s `original`; an answer without one is read as before, and one that cannot be taken is absent.
@Suite struct AppliedRecordCodingTests {
    private static let settingId = LedgerSetting.id(.timezone)

    private static func setting(deleted: Bool) -> DataRecord {
        DataRecord(kind: .setting, id: settingId, fields: ["name": .text("timezone"), "value": .text("Europe/Berlin")],
                   version: 4, seq: 23, deleted: deleted)
    }

    private static var settingJSON: String {
        #"{"deleted":true,"fields":{"name":"timezone","value":"Europe/Berlin"},"id":"\#(UUIDText.lowercased(settingId))","kind":"setting","seq":23,"version":4}"#
    }

    @Test func anAppliedAnswerRoundTripsWithAndWithoutItsRecord() throws {
        let expense = try Fixtures.record()
        let result = PushResult(results: [
            MutationResult(mutationId: 1, status: .applied(version: 1, seq: 5)),
            MutationResult(mutationId: 2, status: .applied(version: 2, seq: 17), record: .expense(expense)),
            MutationResult(mutationId: 3, status: .applied(version: 4, seq: 23), record: .data(Self.setting(deleted: true))),
            MutationResult(mutationId: 4, status: .duplicate(original: .applied(version: 2, seq: 17))),
        ], cursor: 23)
        try checkResult(result, json: #"{"cursor":23,"results":[{"mutationId":1,"seq":5,"status":"applied","version":1},{"mutationId":2,"record":\#(Fixtures.recordJSON),"seq":17,"status":"applied","version":2},{"mutationId":3,"record":\#(Self.settingJSON),"seq":23,"status":"applied","version":4},{"mutationId":4,"original":{"seq":17,"status":"applied","version":2},"status":"duplicate"}]}"#)
    }

    /// A record that does not validate as a pulled one would, or that is not at the answer's version and seq, is
    /// left out (the client then replays its change, as for a daemon that sends none); the answer still reads.
    @Test(arguments: [
        #"{"amount":-5,"category":"food","currency":"USD","date":"2026-11-30","deleted":false,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","note":"","seq":17,"version":2}"#,
        #"{"amount":5,"category":"food","currency":"USD","date":"2026-11-30","deleted":false,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","note":"","seq":17,"version":3}"#,
        #"{"deleted":false,"fields":{"name":"timezone","value":"Nowhere/Atlantis"},"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","kind":"setting","seq":17,"version":2}"#,
        #""later""#,
    ])
    func aRecordThatCannotBeTakenIsAbsent(record: String) throws {
        let line = #"{"mutationId":2,"record":\#(record),"seq":17,"status":"applied","version":2}"#
        let result = try MutationResult(json: try JSONParser.parse(Array(line.utf8)))
        #expect(result == MutationResult(mutationId: 2, status: .applied(version: 2, seq: 17)))
    }

    /// Only an `applied` answer's `record` is read: beside another status it is an unknown member, ignored.
    @Test func aRecordBesideAnotherStatusIsIgnored() throws {
        let line = #"{"mutationId":2,"original":{"seq":17,"status":"applied","version":2},"record":\#(Fixtures.recordJSON),"status":"duplicate"}"#
        let result = try MutationResult(json: try JSONParser.parse(Array(line.utf8)))
        #expect(result == MutationResult(mutationId: 2, status: .duplicate(original: .applied(version: 2, seq: 17))))
        let nested = #"{"mutationId":2,"original":{"record":\#(Fixtures.recordJSON),"seq":17,"status":"applied","version":2},"status":"duplicate"}"#
        #expect(try MutationResult(json: try JSONParser.parse(Array(nested.utf8))).record == nil)
    }
}
