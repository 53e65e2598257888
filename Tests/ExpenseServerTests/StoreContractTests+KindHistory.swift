import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// History entries of budgets, rules and settings (Protocol.md §5.8, §10), against every store: made like an
/// expense's, in the same transaction, shown only to a reader that asks for those kinds.
@Suite struct StoreKindHistoryContractTests {
    @Test(arguments: LedgerStoreKind.allCases)
    func budgetRuleAndSettingChangesMakeEntriesLikeExpenses(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        ledger.engine.clock = { 1_764_590_400 }
        let clientId = UUID(), food = try budgetId()
        let results = try ledger.engine.apply([(clientId, [
            putItem(1, UUID(), base: 0, lunch()),
            kindItem(2, .budget, food, base: 0, budgetFields()),
            kindItem(3, .budget, food, base: 1, ["rollover": "full"]),
            kindItem(4, .budget, food, base: 2, ["rollover": "full"]),  // changes nothing: no entry
            kindItem(5, .budget, food, base: 1, ["rollover": "positive"]),  // conflict: no entry
            kindItem(6, .budget, food, base: 2, nil, type: .delete),
            kindItem(7, .setting, LedgerSetting.id(.timezone), base: 0, ["name": "timezone", "value": "Europe/Berlin"]),
        ], "laptop")])
        #expect(results.count == 1)
        // A reader that does not ask for the kinds (a protocol-1 client) sees exactly what it always saw.
        #expect(try ledger.engine.history(HistoryRequest(limit: 1000)).entries.map(\.seq) == [1])
        let all = try ledger.engine.history(HistoryRequest(limit: 1000, kinds: Set(RecordKind.additional))).entries
        #expect(all.map(\.seq) == [1, 2, 3, 4, 5])
        #expect(all.map(\.kind) == [.expense, .budget, .budget, .budget, .setting])
        #expect(all.map(\.action) == [.create, .create, .edit, .delete, .create])
        #expect(all.allSatisfy { $0.who == "laptop" && $0.clientId == clientId && $0.time == 1_764_590_400 })
        #expect(all[1].changes.map(\.field) == ["amounts", "category", "currency", "period", "rollover", "start"])
        #expect(all[1].changes.allSatisfy { $0.from == nil })
        #expect(all[2].changes == [HistoryEntry.Change(field: "rollover", from: .data(.text("none")), to: .data(.text("full")))])
        #expect(all[3].changes.isEmpty && all[3].version == 3)
        // One record's history, by its id; only the asked kinds.
        let budget = try ledger.engine.history(HistoryRequest(id: food, limit: 1000, kinds: [.budget])).entries
        #expect(budget.map(\.version) == [1, 2, 3])
        #expect(try ledger.engine.history(HistoryRequest(limit: 1000, kinds: [.setting])).entries.map(\.seq) == [1, 5])
        // On the wire: `kind` beside the entry, the values as the record holds them; and back.
        var writer = JSONWriter()
        all[2].write(to: &writer)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text.contains(#""changes":{"rollover":{"from":"none","to":"full"}}"#) && text.contains(#""kind":"budget""#), "\(text)")
        #expect(try HistoryEntry(json: try JSONParser.parse(writer.bytes), path: "entry") == all[2])
        var create = JSONWriter()
        all[1].write(to: &create)
        #expect(try HistoryEntry(json: try JSONParser.parse(create.bytes), path: "entry") == all[1])
    }
}
