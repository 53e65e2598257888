import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// The budget fields of Protocol.md §10, as they come off the wire.
func budgetFields(amount: Int64 = 50_000, category: String = "food", currency: String = "EUR", rollover: String = "none") -> [String: JSONValue] {
    ["category": .string(category), "currency": .string(currency), "period": "month", "start": "2026-01-01",
     "rollover": .string(rollover), "amounts": [["from": "2026-01-01", "amount": .number(JSONNumber(amount))]]]
}

func budgetId(_ category: String = "food", _ currency: String = "EUR") throws -> UUID {
    Budget.id(category: category, currency: try #require(Currency(code: currency)))
}

func kindItem(_ mutationId: Int64, _ kind: RecordKind, _ id: UUID, base: Int64, _ fields: [String: JSONValue]?,
              type: MutationType = .put, ifAbsent: Bool = false) -> PushItem {
    PushItem(mutationId: mutationId, decoded: .success(Mutation(mutationId: mutationId, type: type, id: id, baseVersion: base,
                                                             fields: fields, kind: kind, ifAbsent: ifAbsent)))
}

extension MutationStatus {
    var dataConflictRecord: DataRecord? {
        if case .dataConflict(let current) = self { return current }
        return nil
    }
}

/// Budgets, recurring rules and settings (Protocol.md §10) against every store: the same exactly-once push, the
/// same conflict rules, validation by the core, and nothing of them in a protocol-1 pull or an expense total.
@Suite(.offTheCooperativePool) struct StoreKindsContractTests {
    @Test("two machines setting the same budget make one record; a different amount is a conflict", arguments: LedgerStoreKind.allCases)
    func budgetIdentity(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var laptop = EngineClient(ledger.engine), phone = EngineClient(ledger.engine)
        let id = try budgetId()
        #expect(try laptop.push { kindItem($0, .budget, id, base: 0, budgetFields()) } == .applied(version: 1, seq: 1))
        #expect(try phone.push { kindItem($0, .budget, id, base: 0, budgetFields()) } == .applied(version: 1, seq: 1))
        let conflict = try phone.push { kindItem($0, .budget, id, base: 0, budgetFields(amount: 60_000)) }
        #expect(conflict.dataConflictRecord?.fields["amounts"] == .list([.object(["from": .text("2026-01-01"), "amount": .integer(50_000)])]))
        // An id not derived from the category and currency is refused by the core's validation.
        #expect(try laptop.push { kindItem($0, .budget, UUID(), base: 0, budgetFields()) }.reason == "invalid_id")
        let rent = try budgetId("rent")
        #expect(try laptop.push { kindItem($0, .budget, rent, base: 0, budgetFields(category: "rent", rollover: "some")) }.reason
            == "invalid_value")
        #expect(try ledger.engine.hello(clientId: phone.clientId).lastMutationId == 2)
    }

    @Test("edits merge field by field; the same field changed on both sides conflicts", arguments: LedgerStoreKind.allCases)
    func perFieldConflicts(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var a = EngineClient(ledger.engine), b = EngineClient(ledger.engine)
        let id = try budgetId()
        _ = try a.push { kindItem($0, .budget, id, base: 0, budgetFields()) }
        #expect(try a.push { kindItem($0, .budget, id, base: 1, ["rollover": "full"]) } == .applied(version: 2, seq: 2))
        // B saw version 1 and changes another field: merged.
        #expect(try b.push { kindItem($0, .budget, id, base: 1, ["period": "quarter"]) } == .applied(version: 3, seq: 3))
        // B changes the rollover A changed since version 1, to another value: a conflict, nothing applied.
        let conflict = try b.push { kindItem($0, .budget, id, base: 1, ["rollover": "positive"]) }
        #expect(conflict.dataConflictRecord?.version == 3)
        #expect(conflict.dataConflictRecord?.fields["rollover"] == .text("full"))
        // A delete at an old base conflicts; at the current one it applies; an old create on the tombstone conflicts.
        #expect(try a.push { kindItem($0, .budget, id, base: 2, nil, type: .delete) }.dataConflictRecord != nil)
        #expect(try a.push { kindItem($0, .budget, id, base: 3, nil, type: .delete) } == .applied(version: 4, seq: 4))
        #expect(try b.push { kindItem($0, .budget, id, base: 0, budgetFields()) }.dataConflictRecord?.deleted == true)
        // A restore at the tombstone's version brings it back.
        #expect(try b.push { kindItem($0, .budget, id, base: 4, budgetFields(amount: 1)) } == .applied(version: 5, seq: 5))
    }

    @Test("a recurring rule's amount and currency are one field (money)", arguments: LedgerStoreKind.allCases)
    func recurringMoney(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var a = EngineClient(ledger.engine), b = EngineClient(ledger.engine)
        let id = UUID()
        let rent: [String: JSONValue] = ["amount": 120_000, "currency": "EUR", "category": "rent", "every": 1, "unit": "month",
                                         "start": "2026-01-31", "monthEnd": "clamp"]
        #expect(try a.push { kindItem($0, .recurring, id, base: 0, rent) } == .applied(version: 1, seq: 1))
        #expect(try a.push { kindItem($0, .recurring, id, base: 1, ["currency": "JPY"]) } == .applied(version: 2, seq: 2))
        #expect(try b.push { kindItem($0, .recurring, id, base: 1, ["amount": 130_000]) }.dataConflictRecord != nil)
        #expect(try b.push { kindItem($0, .recurring, id, base: 1, ["note": "flat"]) } == .applied(version: 3, seq: 3))
        // Expense totals never see a rule's amount.
        #expect(try ledger.engine.summary(SummaryQuery()).summary.totals.isEmpty)
    }

    @Test("a pull without kinds sees exactly the expenses; with kinds both, in seq order, paged", arguments: LedgerStoreKind.allCases)
    func pulls(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        _ = try client.put(UUID(), base: 0, lunch())  // seq 1
        let food = try budgetId()
        _ = try client.push { kindItem($0, .budget, food, base: 0, budgetFields()) }  // seq 2
        _ = try client.put(UUID(), base: 0, lunch())  // seq 3
        let zone = LedgerSetting(name: .timezone, value: "Europe/Berlin")
        _ = try client.push { kindItem($0, .setting, zone.id, base: 0, ["name": "timezone", "value": "Europe/Berlin"]) }  // seq 4
        let plain = try ledger.engine.pull(PullRequest(since: 0, limit: 1000))
        #expect(plain.changes.map(\.seq) == [1, 3] && plain.dataChanges.isEmpty && plain.cursor == 4 && !plain.more)
        let all: Set<RecordKind> = [.budget, .recurring, .setting]
        let first = try ledger.engine.pull(PullRequest(since: 0, limit: 2, kinds: all))
        #expect(first.changes.map(\.seq) == [1] && first.dataChanges.map(\.seq) == [2] && first.cursor == 2 && first.more)
        let second = try ledger.engine.pull(PullRequest(since: 2, limit: 2, kinds: all))
        #expect(second.changes.map(\.seq) == [3] && second.dataChanges.map(\.seq) == [4] && second.cursor == 4 && !second.more)
        let budgetsOnly = try ledger.engine.pull(PullRequest(since: 0, limit: 1000, kinds: [.budget]))
        #expect(budgetsOnly.dataChanges.map(\.kind) == [.budget])
        // An id is one record: an expense cannot take a budget's id.
        #expect(try client.put(try budgetId(), base: 0, lunch()).reason == "invalid_id")
    }

    @Test("a pull with expenses false serves only the other kinds, its cursor passing over the expenses", arguments: LedgerStoreKind.allCases)
    func pullsWithoutExpenses(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        _ = try client.put(UUID(), base: 0, lunch())  // seq 1
        let food = try budgetId()
        _ = try client.push { kindItem($0, .budget, food, base: 0, budgetFields()) }  // seq 2
        _ = try client.put(UUID(), base: 0, lunch())  // seq 3
        _ = try client.put(UUID(), base: 0, lunch())  // seq 4
        let zone = LedgerSetting(name: .timezone, value: "Europe/Berlin")
        _ = try client.push { kindItem($0, .setting, zone.id, base: 0, ["name": "timezone", "value": "Europe/Berlin"]) }  // seq 5
        _ = try client.put(UUID(), base: 0, lunch())  // seq 6
        let all: Set<RecordKind> = [.budget, .recurring, .setting]
        let whole = try ledger.engine.pull(PullRequest(since: 0, limit: 1000, kinds: all, expenses: false))
        #expect(whole.changes.isEmpty && whole.dataChanges.map(\.seq) == [2, 5] && whole.cursor == 6 && !whole.more)
        let first = try ledger.engine.pull(PullRequest(since: 0, limit: 1, kinds: all, expenses: false))
        #expect(first.changes.isEmpty && first.dataChanges.map(\.seq) == [2] && first.cursor == 2 && first.more)
        let second = try ledger.engine.pull(PullRequest(since: first.cursor, limit: 1, kinds: all, expenses: false))
        // The last record of those kinds: no more, and the cursor is the head (past expense 6).
        #expect(second.changes.isEmpty && second.dataChanges.map(\.seq) == [5] && second.cursor == 6 && !second.more)
        // Without kinds served there is nothing to send: an empty page at the head.
        let nothing = try ledger.engine.pull(PullRequest(since: 0, limit: 1000, expenses: false))
        #expect(nothing.changes.isEmpty && nothing.dataChanges.isEmpty && nothing.cursor == 6 && !nothing.more)
    }

    @Test("an ifAbsent create leaves an edited or deleted occurrence as it is, and creates an absent one", arguments: LedgerStoreKind.allCases)
    func ifAbsent(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var laptop = EngineClient(ledger.engine), phone = EngineClient(ledger.engine)
        let edited = UUID(), deleted = UUID(), absent = UUID()
        _ = try laptop.push { kindItem($0, .expense, edited, base: 0, lunch(), ifAbsent: true) }  // seq 1
        _ = try laptop.put(edited, base: 1, ["amount": 999])  // seq 2, version 2
        _ = try laptop.push { kindItem($0, .expense, deleted, base: 0, lunch(), ifAbsent: true) }  // seq 3
        _ = try laptop.delete(deleted, base: 1)  // seq 4, version 2
        #expect(try phone.push { kindItem($0, .expense, edited, base: 0, lunch(), ifAbsent: true) } == .applied(version: 2, seq: 2))
        #expect(try phone.push { kindItem($0, .expense, deleted, base: 0, lunch(), ifAbsent: true) } == .applied(version: 2, seq: 4))
        #expect(try phone.push { kindItem($0, .expense, absent, base: 0, lunch(), ifAbsent: true) } == .applied(version: 1, seq: 5))
        let records = try allRecords(ledger.engine)
        #expect(records.first { $0.expense.id == edited }?.expense.amount == 999)
        #expect(records.first { $0.expense.id == deleted }?.deleted == true)
        // A plain create of the deleted id is still the conflict it always was.
        #expect(try phone.put(deleted, base: 0, lunch()).isConflict)
    }

    @Test("data records survive a reopen, and the head counts them")
    func reopen() throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let path = directory + "/test.sqlite"
        let clientId = UUID()
        do {
            let engine = LedgerEngine(store: try SQLiteLedgerStore(path: path, name: "t", currency: .usd), currency: .usd)
            _ = try engine.push(clientId: clientId, items: [putItem(1, UUID(), base: 0, lunch()),
                                                            kindItem(2, .budget, try budgetId(), base: 0, budgetFields())])
        }
        let engine = LedgerEngine(store: try SQLiteLedgerStore(path: path, name: "t", currency: .usd), currency: .usd)
        #expect(engine.store.head == 2)
        let page = try engine.pull(PullRequest(since: 0, limit: 10, kinds: [.budget]))
        #expect(page.dataChanges.first?.fields["currency"] == .text("EUR"))
        #expect(try engine.push(clientId: clientId, items: [kindItem(3, .budget, try budgetId(), base: 1, ["rollover": "full"])])
            .results[0].status == .applied(version: 2, seq: 3))
    }
}
