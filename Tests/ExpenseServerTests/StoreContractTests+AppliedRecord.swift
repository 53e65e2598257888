import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// An `applied` answer carries the record as the daemon stored it (Protocol.md §5.2, `record`), against every
/// store: on each path of the one `decide` (written, or left as it was), it is the record a pull returns right
/// after; no other answer carries one, nor a `duplicate` repeating an applied outcome.
@Suite(.offTheCooperativePool) struct StoreAppliedRecordContractTests {
    /// Pushes `item` and returns its result, after checking that an applied one's record is the record a pull
    /// of every kind returns now, and that any other carries none.
    private static func push(_ client: inout EngineClient, _ make: (Int64) -> PushItem,
                             sourceLocation: SourceLocation = #_sourceLocation) throws -> MutationResult {
        let item = make(client.next)
        client.next += 1
        let result = try #require(try client.engine.push(clientId: client.clientId, items: [item]).results.first)
        guard case .applied = result.status else {
            #expect(result.record == nil, "only an applied answer carries a record", sourceLocation: sourceLocation)
            return result
        }
        let id = try #require(try? item.decoded.get().id)
        let page = try client.engine.pull(PullRequest(since: 0, limit: 10_000, kinds: Set(RecordKind.additional)))
        let pulled = page.changes.first { $0.expense.id == id }.map(AppliedRecord.expense)
            ?? page.dataChanges.first { $0.id == id }.map(AppliedRecord.data)
        #expect(result.record != nil && result.record == pulled, sourceLocation: sourceLocation)
        return result
    }

    @Test("every applied expense answer carries the record as stored", arguments: LedgerStoreKind.allCases)
    func expenseAnswersCarryTheStoredRecord(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var alice = EngineClient(ledger.engine), bob = EngineClient(ledger.engine)
        let id = UUID()
        // A create, normalised: the category trimmed, the ledger's currency and the empty note filled in.
        let created = try Self.push(&alice) { putItem($0, id, base: 0, lunch(category: " food ")) }
        guard case .expense(let record)? = created.record else { throw RecordError.missing }
        #expect(record.expense.category == "food" && record.expense.currency == .usd && record.expense.note == "")
        #expect(try Self.push(&alice) { putItem($0, id, base: 1, fields(note: "alice")) }.status == .applied(version: 2, seq: 2))
        // Bob edits the amount on version 1: merged with Alice's note, which only the answer tells him.
        let merged = try Self.push(&bob) { putItem($0, id, base: 1, fields(amount: 900)) }
        guard case .expense(let both)? = merged.record else { throw RecordError.missing }
        #expect(both.expense.amount == 900 && both.expense.note == "alice" && both.version == 3)
        // Applied with nothing changed: a no-op edit, the same create again, an occurrence's create of an id held.
        #expect(try Self.push(&bob) { putItem($0, id, base: 3, fields(note: "alice")) }.status == .applied(version: 3, seq: 3))
        var same = lunch(900)
        same["note"] = "alice"
        #expect(try Self.push(&alice) { putItem($0, id, base: 0, same) }.status == .applied(version: 3, seq: 3))
        #expect(try Self.push(&alice) { kindItem($0, .expense, id, base: 0, lunch(5), ifAbsent: true) }.status
            == .applied(version: 3, seq: 3))
        // A conflict and a rejection carry none.
        #expect(try Self.push(&alice) { putItem($0, id, base: 2, fields(amount: 1)) }.status.isConflict)
        #expect(try Self.push(&alice) { putItem($0, id, base: 3, fields(amount: -1)) }.status.reason == "invalid_amount")
        // A delete answers with the tombstone, and so does a delete of the deleted record.
        let deleted = try Self.push(&alice) { deleteItem($0, id, base: 3) }
        guard case .expense(let tombstone)? = deleted.record else { throw RecordError.missing }
        #expect(tombstone.deleted && tombstone.version == 4 && tombstone.expense.amount == 900)
        #expect(try Self.push(&bob) { deleteItem($0, id, base: 1) }.status == .applied(version: 4, seq: 4))
        // A restore.
        #expect(try Self.push(&bob) { putItem($0, id, base: 4, lunch(700)) }.status == .applied(version: 5, seq: 5))
    }

    @Test("every applied answer of a budget carries the record as stored", arguments: LedgerStoreKind.allCases)
    func dataAnswersCarryTheStoredRecord(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var a = EngineClient(ledger.engine), b = EngineClient(ledger.engine)
        let id = try budgetId()
        _ = try Self.push(&a) { kindItem($0, .budget, id, base: 0, budgetFields()) }
        #expect(try Self.push(&a) { kindItem($0, .budget, id, base: 1, ["rollover": "full"]) }.status == .applied(version: 2, seq: 2))
        let merged = try Self.push(&b) { kindItem($0, .budget, id, base: 1, ["period": "quarter"]) }
        guard case .data(let both)? = merged.record else { throw RecordError.missing }
        #expect(both.fields["rollover"] == .text("full") && both.fields["period"] == .text("quarter") && both.version == 3)
        #expect(try Self.push(&b) { kindItem($0, .budget, id, base: 3, ["rollover": "full"]) }.status == .applied(version: 3, seq: 3))
        let deleted = try Self.push(&a) { kindItem($0, .budget, id, base: 3, nil, type: .delete) }
        guard case .data(let tombstone)? = deleted.record else { throw RecordError.missing }
        #expect(tombstone.deleted && tombstone.kind == .budget && tombstone.version == 4)
    }

    /// The outcome kept for a `duplicate` is the status alone: asked again, an applied mutation is answered with
    /// its original version and seq and no record (the kept outcomes stay packed).
    @Test("a duplicate of an applied mutation carries no record", arguments: LedgerStoreKind.allCases)
    func aDuplicateCarriesNoRecord(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        let clientId = UUID(), id = UUID()
        let first = try ledger.engine.push(clientId: clientId, items: [putItem(1, id, base: 0, lunch())])
        #expect(first.results[0].record != nil)
        let again = try ledger.engine.push(clientId: clientId, items: [putItem(1, id, base: 0, lunch())])
        #expect(again.results == [MutationResult(mutationId: 1, status: .duplicate(original: .applied(version: 1, seq: 1)))])
    }

    private enum RecordError: Error { case missing }
}
