import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// The daemon's rules about members and shared expenses, against every store: names unique across member
/// records, a payer and a split only of live members who have not left, splits checked by the core's one
/// function (never shares sent by a client), and amount and split one value for conflicts.
@Suite(.offTheCooperativePool) struct StoreMemberContractTests {
    private static func member(_ name: String, status: String = "active") -> [String: JSONValue] {
        ["name": .string(name), "status": .string(status)]
    }

    private static func push(_ client: inout EngineClient, _ make: (Int64) -> PushItem) throws -> MutationStatus {
        let item = make(client.next)
        client.next += 1
        return try #require(try client.engine.push(clientId: client.clientId, items: [item]).results.first).status
    }

    @Test("member names are unique by their bytes across records; a rename to a free name applies", arguments: LedgerStoreKind.allCases)
    func uniqueNames(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var alice = EngineClient(ledger.engine)
        let ann = UUID(), other = UUID(), third = UUID()
        #expect(try Self.push(&alice) { kindItem($0, .member, ann, base: 0, Self.member("ann")) }.isApplied)
        #expect(try Self.push(&alice) { kindItem($0, .member, other, base: 0, Self.member(" ann ")) }.reason == "member_exists")
        // NFD "é" is another name than NFC "é": names compare by their bytes.
        #expect(try Self.push(&alice) { kindItem($0, .member, other, base: 0, Self.member("ren\u{E9}")) }.isApplied)
        #expect(try Self.push(&alice) { kindItem($0, .member, third, base: 0, Self.member("rene\u{301}")) }.isApplied)
        #expect(try Self.push(&alice) { kindItem($0, .member, third, base: 1, Self.member("ann")) }.reason == "member_exists")
        #expect(try Self.push(&alice) { kindItem($0, .member, third, base: 1, Self.member("bea")) }.isApplied)
        // The same record keeping its name (leaving) is no clash with itself.
        #expect(try Self.push(&alice) { kindItem($0, .member, ann, base: 1, Self.member("ann", status: "left")) }.isApplied)
    }

    @Test("a payer or a split naming no member, or one who left, is refused; a kept split may name one who left since",
          arguments: LedgerStoreKind.allCases)
    func splitMembers(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let ann = UUID(), bob = UUID(), ghost = UUID(), expense = UUID()
        #expect(try Self.push(&client) { kindItem($0, .member, ann, base: 0, Self.member("ann")) }.isApplied)
        #expect(try Self.push(&client) { kindItem($0, .member, bob, base: 0, Self.member("bob")) }.isApplied)
        func shared(_ members: [UUID], payer: UUID = ann, amount: Int64 = 1000) -> [String: JSONValue] {
            var fields = lunch(amount)
            fields["paidBy"] = .string(UUIDText.lowercased(payer))
            fields["split"] = .string((try? SplitSpec(method: .equal, parts: members.map { .init(member: $0, weight: 1) }).text) ?? "")
            return fields
        }
        #expect(try Self.push(&client) { putItem($0, UUID(), base: 0, shared([ann, ghost])) }.reason == "unknown_member")
        #expect(try Self.push(&client) { putItem($0, UUID(), base: 0, shared([ann, bob], payer: ghost)) }.reason == "unknown_member")
        // A budget's id is no member.
        #expect(try Self.push(&client) { putItem($0, expense, base: 0, shared([ann, bob])) }.isApplied)
        #expect(try Self.push(&client) { kindItem($0, .member, bob, base: 1, Self.member("bob", status: "left")) }.isApplied)
        // Bob left: the amount may still change (the split is kept), a new split may not name him.
        #expect(try Self.push(&client) { putItem($0, expense, base: 1, fields(amount: 1500)) }.isApplied)
        var again = shared([bob, ann])
        again["split"] = .string("shares:" + [ann, bob].map(UUIDText.lowercased).sorted().map { $0 + "=2" }.joined(separator: ","))
        #expect(try Self.push(&client) { putItem($0, expense, base: 2, ["split": again["split"] ?? .null]) }.reason == "member_left")
    }

    @Test("splits are checked by the core: exact amounts must add up, shares are never taken from a client",
          arguments: LedgerStoreKind.allCases)
    func splitsCheckedByTheDaemon(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let ann = UUID(), bob = UUID()
        #expect(try Self.push(&client) { kindItem($0, .member, ann, base: 0, Self.member("ann")) }.isApplied)
        #expect(try Self.push(&client) { kindItem($0, .member, bob, base: 0, Self.member("bob")) }.isApplied)
        let (first, second) = [ann, bob].map(UUIDText.lowercased).sorted().pair
        var fields = lunch(1000)
        fields["paidBy"] = .string(UUIDText.lowercased(ann))
        fields["split"] = .string("exact:\(first)=600,\(second)=300")
        #expect(try Self.push(&client) { putItem($0, UUID(), base: 0, fields) }.reason == "invalid_split")
        fields["split"] = .string("exact:\(second)=600,\(first)=400")  // not in id order: not the canonical text
        #expect(try Self.push(&client) { putItem($0, UUID(), base: 0, fields) }.reason == "invalid_split")
        fields["split"] = .string("equal:\(first),\(second)")
        fields["shares"] = .string("\(first)=1000")
        #expect(try Self.push(&client) { putItem($0, UUID(), base: 0, fields) }.reason == "unknown_field")
        fields["shares"] = nil
        fields["paidBy"] = nil
        #expect(try Self.push(&client) { putItem($0, UUID(), base: 0, fields) }.reason == "missing_field")
    }

    @Test("amount and split are one value: a stale split edit conflicts with an amount edit; a payer edit merges",
          arguments: LedgerStoreKind.allCases)
    func moneyAndSplitConflict(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var alice = EngineClient(ledger.engine), bob = EngineClient(ledger.engine)
        let ann = UUID(), ben = UUID(), expense = UUID()
        #expect(try Self.push(&alice) { kindItem($0, .member, ann, base: 0, Self.member("ann")) }.isApplied)
        #expect(try Self.push(&alice) { kindItem($0, .member, ben, base: 0, Self.member("ben")) }.isApplied)
        let (first, second) = [ann, ben].map(UUIDText.lowercased).sorted().pair
        var fields = lunch(1000)
        fields["paidBy"] = .string(UUIDText.lowercased(ann))
        fields["split"] = .string("equal:\(first),\(second)")
        #expect(try Self.push(&alice) { putItem($0, expense, base: 0, fields) }.isApplied)
        #expect(try Self.push(&alice) { putItem($0, expense, base: 1, ["amount": .number(JSONNumber(2000))]) }.isApplied)
        #expect(try Self.push(&bob) { putItem($0, expense, base: 1, ["split": .string("shares:\(first)=2,\(second)=1")]) }.isConflict)
        #expect(try Self.push(&bob) { putItem($0, expense, base: 1, ["paidBy": .string(UUIDText.lowercased(ben))]) }.isApplied)
        // An exact split made for the amount on one machine, the amount changed on the other from before it: the
        // merged values would not add up, and that is a conflict to show, not a refusal of bob's amount.
        #expect(try Self.push(&alice) { putItem($0, expense, base: 3, ["split": .string("exact:\(first)=1500,\(second)=500")]) }.isApplied)
        #expect(try Self.push(&bob) { putItem($0, expense, base: 3, ["amount": .number(JSONNumber(3000))]) }.isConflict)
        // The same amount sent on the current version is refused: the split is exact for another amount.
        #expect(try Self.push(&bob) { putItem($0, expense, base: 4, ["amount": .number(JSONNumber(3000))]) }.reason == "invalid_split")
        // A value refused for itself stays refused, stale or not (Protocol.md 7.1: a rejection before a conflict).
        #expect(try Self.push(&bob) { putItem($0, expense, base: 3, ["amount": .number(JSONNumber(0))]) }.reason == "invalid_amount")
    }
}

extension MutationStatus {
    var isApplied: Bool {
        if case .applied = self { return true }
        return false
    }
}

extension Array {
    /// The first two elements (the array has at least two).
    fileprivate var pair: (Element, Element) { (self[0], self[1]) }
}
