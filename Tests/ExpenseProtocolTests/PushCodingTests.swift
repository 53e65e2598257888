import ExpenseCore
import Foundation
import Testing
@testable import ExpenseProtocol

private func push(_ mutations: [String]) throws(RPCError) -> [PushItem] {
    let text = #"{"mutations":["# + mutations.joined(separator: ",") + "]}"
    do {
        return try PushRequest(params: JSONParser.parse(Array(text.utf8))).items
    } catch let error as RPCError {
        throw error
    } catch {
        preconditionFailure("test JSON is invalid: \(error)")
    }
}

private let put = #""type":"put","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","baseVersion":0,"fields":{"amount":1250}"#

@Suite struct PushCodingTests {
    @Test func roundTrip() throws {
        let mutations = [
            Mutation(mutationId: 1, type: .put, id: Fixtures.id, baseVersion: 0,
                     fields: ["amount": 1250, "currency": "USD", "category": "food", "date": "2026-11-30", "note": "lunch"]),
            Mutation(mutationId: 2, type: .delete, id: Fixtures.id, baseVersion: 1, fields: nil),
        ]
        try checkParams(PushRequest(mutations: mutations), json:
            #"{"mutations":[{"baseVersion":0,"fields":{"amount":1250,"category":"food","currency":"USD","date":"2026-11-30","note":"lunch"},"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","mutationId":1,"type":"put"},{"baseVersion":1,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","mutationId":2,"type":"delete"}]}"#)
    }

    @Test func results() throws {
        let result = PushResult(results: [
            MutationResult(mutationId: 1, status: .applied(version: 1, seq: 5)),
            MutationResult(mutationId: 2, status: .duplicate(original: nil)),
            MutationResult(mutationId: 3, status: .conflict(current: try Fixtures.record())),
            MutationResult(mutationId: 4, status: .rejected(MutationRejection(reason: "invalid_amount", field: "amount", message: "bad"))),
            MutationResult(mutationId: 5, status: .rejected(MutationRejection(reason: "mutation_gap", field: nil, message: "gap"))),
        ], cursor: 5)
        try checkResult(result, json: #"{"cursor":5,"results":[{"mutationId":1,"seq":5,"status":"applied","version":1},{"mutationId":2,"status":"duplicate"},{"current":\#(Fixtures.recordJSON),"mutationId":3,"status":"conflict"},{"error":{"field":"amount","message":"bad","reason":"invalid_amount"},"mutationId":4,"status":"rejected"},{"error":{"message":"gap","reason":"mutation_gap"},"mutationId":5,"status":"rejected"}]}"#)
    }

    /// A `duplicate` carries what was decided when the id was consumed (Protocol.md §5.2); a reader that does not
    /// know `original` (protocol 1 as first written) still reads the line, and an unreadable one is absent.
    @Test func duplicateCarriesTheOriginalOutcome() throws {
        let rejection = MutationRejection(reason: "invalid_amount", field: "amount", message: "bad")
        let result = PushResult(results: [
            MutationResult(mutationId: 1, status: .duplicate(original: .applied(version: 3, seq: 41))),
            MutationResult(mutationId: 2, status: .duplicate(original: .conflict(current: try Fixtures.record()))),
            MutationResult(mutationId: 3, status: .duplicate(original: .rejected(rejection))),
        ], cursor: 41)
        try checkResult(result, json: #"{"cursor":41,"results":[{"mutationId":1,"original":{"seq":41,"status":"applied","version":3},"status":"duplicate"},{"mutationId":2,"original":{"current":\#(Fixtures.recordJSON),"status":"conflict"},"status":"duplicate"},{"mutationId":3,"original":{"error":{"field":"amount","message":"bad","reason":"invalid_amount"},"status":"rejected"},"status":"duplicate"}]}"#)
        let unreadable = try JSONParser.parse(Array(#"{"mutationId":4,"original":{"status":"later"},"status":"duplicate"}"#.utf8))
        #expect(try MutationResult(json: unreadable).status == .duplicate(original: nil))
    }

    @Test func batchLimit() throws {
        let one = "{\"mutationId\":1,\(put)}"
        #expect(try push(Array(repeating: one, count: 1000)).count == 1000)
        #expect(throws: RPCError.batchTooLarge(count: 1001)) { try push(Array(repeating: one, count: 1001)) }
        #expect(try push([]).isEmpty)
    }

    @Test(arguments: ["0", "-1", "1.5", "\"1\"", "1e0", "1.0", "null", "true", "9223372036854775808"])
    func badMutationIdFailsTheWholePush(mutationId: String) {
        do {
            _ = try push(["{\"mutationId\":1,\(put)}", "{\"mutationId\":\(mutationId),\(put)}"])
            Issue.record("accepted mutationId \(mutationId)")
        } catch {
            #expect(error.code == RPCError.invalidParamsCode)
            #expect(error.reason == "invalid_mutation")
            #expect(error.field == "mutations[1].mutationId")
        }
    }

    @Test func missingMutationIdOrNonObjectFailsTheWholePush() {
        #expect(throws: RPCError.self) { try push([put.isEmpty ? "" : "{\(put)}"]) }
        #expect((try? push(["[]"])) == nil)
        #expect((try? push(["5"])) == nil)
    }

    @Test func paramsShape() {
        #expect(paramsError(PushRequest.self, nil)?.field == "mutations")
        #expect(paramsError(PushRequest.self, #"{"mutations":{}}"#)?.reason == "invalid_params")
        #expect(paramsError(PushRequest.self, #"{"mutations":[],"future":1}"#) == nil)
    }

    @Test(arguments: [
        (#""type":"upsert","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","baseVersion":0,"fields":{}"#, "invalid_mutation", "type"),
        (#""id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","baseVersion":0,"fields":{}"#, "invalid_mutation", "type"),
        (#""type":"PUT","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","baseVersion":0,"fields":{}"#, "invalid_mutation", "type"),
        (#""type":"put","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","baseVersion":-1,"fields":{}"#, "invalid_mutation", "baseVersion"),
        (#""type":"put","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","baseVersion":1.0,"fields":{}"#, "invalid_mutation", "baseVersion"),
        (#""type":"put","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","baseVersion":"1","fields":{}"#, "invalid_mutation", "baseVersion"),
        (#""type":"put","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","fields":{}"#, "invalid_mutation", "baseVersion"),
        (#""type":"put","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","baseVersion":0"#, "invalid_mutation", "fields"),
        (#""type":"put","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","baseVersion":0,"fields":[]"#, "invalid_mutation", "fields"),
        (#""type":"put","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","baseVersion":0,"fields":null"#, "invalid_mutation", "fields"),
        (#""type":"delete","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","baseVersion":1,"fields":{}"#, "invalid_mutation", "fields"),
        (#""type":"put","id":"6f9619ff","baseVersion":0,"fields":{}"#, "invalid_id", "id"),
        (#""type":"put","id":42,"baseVersion":0,"fields":{}"#, "invalid_id", "id"),
        (#""type":"delete","baseVersion":1"#, "invalid_id", "id"),
        (#""type":"put","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ffx","baseVersion":0,"fields":{}"#, "invalid_id", "id"),
        // Shape is checked before the id: a bad type and a bad id is invalid_mutation.
        (#""type":"frob","id":"x","baseVersion":0,"fields":{}"#, "invalid_mutation", "type"),
    ])
    func malformedMutationIsConfinedToItsItem(body: String, reason: String, field: String) throws {
        let items = try push(["{\"mutationId\":1,\(put)}", "{\"mutationId\":2,\(body)}", "{\"mutationId\":3,\(put)}"])
        #expect(items.count == 3)
        #expect(items.map(\.mutationId) == [1, 2, 3])
        guard case .failure(let rejection) = items[1].decoded else { Issue.record("accepted \(body)"); return }
        #expect(rejection.reason == reason)
        #expect(rejection.field == field)
        if case .failure = items[0].decoded { Issue.record("neighbour refused") }
        if case .failure = items[2].decoded { Issue.record("neighbour refused") }
    }

    @Test func wellFormedVariants() throws {
        let items = try push([
            #"{"mutationId":1,"type":"delete","id":"6F9619FF-8B86-D011-B42D-00CF4FC964FF","baseVersion":3,"fields":null,"future":{}}"#,
            #"{"mutationId":2,"type":"put","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","baseVersion":2,"fields":{"note":"x","bogus":1}}"#,
        ])
        #expect(items[0].decoded == .success(Mutation(mutationId: 1, type: .delete, id: Fixtures.id, baseVersion: 3, fields: nil)))
        // Field contents are not judged here: the ledger does that after not_found/invalid_base_version.
        #expect(items[1].decoded == .success(Mutation(mutationId: 2, type: .put, id: Fixtures.id, baseVersion: 2, fields: ["note": "x", "bogus": 1])))
    }

    @Test func refusedItemIsReEncodedAsMalformed() throws {
        let request = PushRequest(items: [PushItem(mutationId: 4, decoded: .failure(MutationRejection(reason: "invalid_id", field: "id", message: "")))])
        #expect(String(decoding: request.paramsBytes, as: UTF8.self) == #"{"mutations":[{"mutationId":4}]}"#)
        let items = try PushRequest(params: JSONParser.parse(request.paramsBytes)).items
        guard case .failure(let rejection) = items[0].decoded else { Issue.record("accepted"); return }
        #expect(rejection.reason == "invalid_mutation")
    }
}
