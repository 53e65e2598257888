import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// The daemon's side of import rules, against every store: a rule is validated by the core's one validator (a
/// regular expression that does not compile is `invalid_regex`), and one rule moved by two clients is a
/// conflict of its position while a rename beside a move merges.
@Suite(.offTheCooperativePool) struct StoreRuleContractTests {
    private static func rule(regex: String = "^rewe ", position: Int64 = 1 << 32, name: String? = nil) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "position": .number(JSONNumber(text: String(position))), "match": .string("all"),
            "conditions": .array([.object(["field": .string("text"), "regex": .string(regex)])]),
            "actions": .array([.object(["action": .string("setCategory"), "value": .string("groceries")])]),
        ]
        if let name { fields["name"] = .string(name) }
        return fields
    }

    private static func push(_ client: inout EngineClient, _ make: (Int64) -> PushItem) throws -> MutationStatus {
        let item = make(client.next)
        client.next += 1
        return try #require(try client.engine.push(clientId: client.clientId, items: [item]).results.first).status
    }

    @Test("a rule is validated by the daemon: a bad regex is invalid_regex, an unknown action invalid_value", arguments: LedgerStoreKind.allCases)
    func validation(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var alice = EngineClient(ledger.engine)
        #expect(try Self.push(&alice) { kindItem($0, .rule, UUID(), base: 0, Self.rule(regex: "rewe(")) }.reason == "invalid_regex")
        #expect(try Self.push(&alice) { kindItem($0, .rule, UUID(), base: 0, Self.rule(regex: "(a{1000}){1000}")) }.reason == "invalid_regex")
        var bad = Self.rule()
        bad["actions"] = .array([.object(["action": .string("deleteEverything"), "value": .string("x")])])
        #expect(try Self.push(&alice) { kindItem($0, .rule, UUID(), base: 0, bad) }.reason == "invalid_value")
        #expect(try Self.push(&alice) { kindItem($0, .rule, UUID(), base: 0, Self.rule()) }.isApplied)
    }

    @Test("one rule moved by two clients is a conflict of its position; a rename beside a move merges", arguments: LedgerStoreKind.allCases)
    func concurrentMoves(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var alice = EngineClient(ledger.engine), bob = EngineClient(ledger.engine)
        let id = UUID()
        #expect(try Self.push(&alice) { kindItem($0, .rule, id, base: 0, Self.rule()) }.isApplied)
        #expect(try Self.push(&alice) { kindItem($0, .rule, id, base: 1, ["position": .number(JSONNumber(text: "10"))]) }.isApplied)
        #expect(try Self.push(&bob) { kindItem($0, .rule, id, base: 1, ["name": .string("shops")]) }.isApplied)
        let moved = try Self.push(&bob) { kindItem($0, .rule, id, base: 1, ["position": .number(JSONNumber(text: "20"))]) }
        #expect(moved.dataConflictRecord?.fields["position"] == .integer(10), "\(moved)")
    }
}
