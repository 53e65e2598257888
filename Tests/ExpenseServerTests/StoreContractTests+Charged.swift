import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// An expense's amount charged in the ledger's currency (`charged`), against every store: stored and pulled as it
/// was sent, on the fast page as on the general path, written only when set, in history with money, and one
/// value with the amount for conflicts.
@Suite(.offTheCooperativePool) struct StoreChargedContractTests {
    @Test("a record with charged round-trips through the store, its pull page and history; 0 clears it", arguments: LedgerStoreKind.allCases)
    func roundTrip(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let id = UUID(), plain = UUID()
        var create = fields(amount: 12_000, currency: "CHF", category: "food", date: "2026-03-04")
        create["charged"] = .number(JSONNumber(12_840))
        #expect(try client.put(id, base: 0, create).reason == nil)
        #expect(try client.put(plain, base: 0, lunch()).reason == nil)
        let records = try allRecords(ledger.engine)
        #expect(records.first { $0.expense.id == id }?.expense.charged == 12_840)
        #expect(records.first { $0.expense.id == plain }?.expense.charged == nil)
        // The page the store writes from its rows is the general path's, byte for byte: `charged` only when set.
        let params = PullRequest(since: 0, limit: 10_000)
        let line = try ledger.engine.pullPage(params).responseLine(id: nil, maximumLineLength: 1 << 24)
        #expect(line == PullPageEncodingTests.referenceLine(try ledger.engine.pull(params), id: nil, maximumLineLength: 1 << 24))
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.contains(#""category":"food","charged":12840,"currency":"CHF""#) && text.components(separatedBy: "charged").count == 2, "\(text)")
        // History: the create's money carries it; an edit to 0 shows it going.
        #expect(try client.put(id, base: 1, ["charged": .number(JSONNumber(0))]).reason == nil)
        let history = try ledger.engine.history(HistoryRequest(id: id, since: 0, limit: 100)).entries
        let chf = try #require(Currency(code: "CHF"))
        #expect(history.first?.changes.first { $0.field == "money" }?.to == .money(amount: 12_000, currency: chf, charged: 12_840))
        #expect(history.last?.changes == [HistoryEntry.Change(field: "money", from: .money(amount: 12_000, currency: chf, charged: 12_840),
                                                              to: .money(amount: 12_000, currency: chf))])
        #expect(try allRecords(ledger.engine).first { $0.expense.id == id }?.expense.charged == nil)
        // Out of range, or not an integer: invalid_charged.
        #expect(try client.put(id, base: 2, ["charged": .number(JSONNumber(-1))]).reason == "invalid_charged")
        #expect(try client.put(id, base: 2, ["charged": .string("12840")]).reason == "invalid_charged")
    }

    @Test("charged is money: a stale charged edit conflicts with an amount edit; a note edit merges with it", arguments: LedgerStoreKind.allCases)
    func moneyConflict(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var alice = EngineClient(ledger.engine), bob = EngineClient(ledger.engine)
        let id = UUID()
        #expect(try alice.put(id, base: 0, fields(amount: 12_000, currency: "CHF", category: "food", date: "2026-03-04")).reason == nil)
        #expect(try alice.put(id, base: 1, fields(amount: 12_500, currency: "CHF")).reason == nil)
        #expect(try bob.put(id, base: 1, ["charged": .number(JSONNumber(13_100))]).isConflict)
        #expect(try alice.put(id, base: 2, fields(note: "lunch")).reason == nil)
        #expect(try bob.put(id, base: 2, ["charged": .number(JSONNumber(13_100))]).reason == nil)
        let record = try #require(try allRecords(ledger.engine).first { $0.expense.id == id })
        #expect(record.expense.note == "lunch" && record.expense.charged == 13_100 && record.expense.amount == 12_500)
    }
}
