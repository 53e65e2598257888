import ExpenseCore
import Foundation
import Testing
@testable import ExpenseProtocol

/// Exact bytes of the record-kind members (Protocol.md §10): present only when used, so protocol-1 messages
/// are byte for byte what they were.
@Suite struct RecordKindsCodingTests {
    @Test func helloKinds() throws {
        try checkParams(HelloRequest(protocolVersion: 1, ledger: "l", token: "t", clientId: Fixtures.id, clientName: nil, kinds: [.budget, .setting]),
                        json: #"{"clientId":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","kinds":["budget","setting"],"ledger":"l","protocol":1,"token":"t"}"#)
        try checkResult(HelloResult(protocolVersion: 1, server: "s", ledger: "l", currency: .usd, cursor: 1, lastMutationId: 0, maxLine: 4096,
                                    kinds: [.budget]),
                        json: #"{"currency":"USD","cursor":1,"kinds":["budget"],"lastMutationId":0,"ledger":"l","maxLine":4096,"protocol":1,"server":"s"}"#)
        let parsed = try HelloRequest(params: try JSONParser.parse(Array(
            #"{"protocol":1,"ledger":"l","token":"t","clientId":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","kinds":["setting","expense","later","budget"]}"#.utf8)))
        #expect(parsed.kinds == [.budget, .setting])
        #expect(paramsError(HelloRequest.self, #"{"protocol":1,"ledger":"l","token":"t","clientId":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","kinds":[1]}"#)?.field == "kinds")
    }

    @Test("kind and ifAbsent are written only when used, and refused when malformed")
    func mutationMembers() throws {
        let id = Fixtures.id
        var writer = JSONWriter()
        Mutation(mutationId: 1, type: .delete, id: id, baseVersion: 2, fields: nil, kind: .budget).write(to: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self)
            == #"{"baseVersion":2,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","kind":"budget","mutationId":1,"type":"delete"}"#)
        func shape(_ members: [String: JSONValue]) -> Result<Mutation, MutationRejection> {
            PushRequest.mutation(mutationId: 1, members: PushRequest.MutationMembers(
                ["type": "put", "baseVersion": 0, "fields": [:], "id": .string(id.uuidString)].merging(members) { _, new in new }))
        }
        #expect(try shape(["kind": "recurring"]).get().kind == .recurring)
        #expect(try shape([:]).get().kind == .expense)
        #expect(try shape(["ifAbsent": true]).get().ifAbsent)
        for bad: [String: JSONValue] in [["kind": "expenses"], ["kind": 1]] {
            #expect(throws: MutationRejection(reason: "invalid_mutation", field: "kind", message: "kind must be one of expense, budget, recurring, setting, member, transfer, rate, rule")) {
                try shape(bad).get()
            }
        }
        for bad: [String: JSONValue] in [["ifAbsent": 1], ["ifAbsent": true, "kind": "budget"], ["ifAbsent": true, "baseVersion": 3]] {
            #expect(throws: MutationRejection.self) { try shape(bad).get() }
        }
    }
}
