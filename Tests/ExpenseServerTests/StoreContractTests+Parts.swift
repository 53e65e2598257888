import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// An expense's parts in other categories (`parts`), against every store: refused by the daemon when they do not
/// add up (`invalid_parts`), stored and pulled as sent, in history with money, one value with the amount for
/// conflicts, and counted once in the store's totals by category (each part in its category, the remainder in the
/// expense's), which must equal the core's own count of the same records.
@Suite(.offTheCooperativePool) struct StorePartsContractTests {
    /// 84.20 of food with 12.30 of household and 9.90 of pharmacy, on 2026-03-04.
    static func receipt() -> [String: JSONValue] {
        var create = fields(amount: 8_420, currency: "USD", category: "food", date: "2026-03-04")
        create["parts"] = .string("1230:household\n990:pharmacy")
        return create
    }

    @Test("the daemon refuses parts that do not add up or are malformed, with invalid_parts", arguments: LedgerStoreKind.allCases)
    func refusals(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let id = UUID()
        var create = Self.receipt()
        for bad in ["8420:household", "9000:household", "1230:food", "1230:household\n990:household", "12.30:household",
                    "0:household", "household=12.30", "1230: household", ""] where !bad.isEmpty {
            create["parts"] = .string(bad)
            #expect(try client.put(id, base: 0, create).reason == "invalid_parts", "\(bad)")
        }
        create["parts"] = .number(JSONNumber(1230))
        #expect(try client.put(id, base: 0, create).reason == "invalid_parts")
        #expect(try allRecords(ledger.engine).isEmpty)
        // An amount edit the stored parts no longer fit is refused too: never stored unbalanced.
        #expect(try client.put(id, base: 0, Self.receipt()).reason == nil)
        #expect(try client.put(id, base: 1, fields(amount: 2_220)).reason == "invalid_parts")
        #expect(try client.put(id, base: 1, fields(amount: 2_221)).reason == nil)
        #expect(try allRecords(ledger.engine).first?.expense.amount == 2_221)
    }

    @Test("parts round-trip through the store, its pull page and history; the empty text clears them", arguments: LedgerStoreKind.allCases)
    func roundTrip(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let id = UUID()
        #expect(try client.put(id, base: 0, Self.receipt()).reason == nil)
        #expect(try client.put(UUID(), base: 0, lunch()).reason == nil)
        let record = try #require(try allRecords(ledger.engine).first { $0.expense.id == id })
        #expect(record.expense.partsText == "1230:household\n990:pharmacy")
        let params = PullRequest(since: 0, limit: 10_000)
        let line = try ledger.engine.pullPage(params).responseLine(id: nil, maximumLineLength: 1 << 24)
        #expect(line == PullPageEncodingTests.referenceLine(try ledger.engine.pull(params), id: nil, maximumLineLength: 1 << 24))
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.contains(#""paidBy""#) == false && text.components(separatedBy: #""parts""#).count == 2, "\(text)")
        #expect(try client.put(id, base: 1, ["parts": .string("")]).reason == nil)
        let history = try ledger.engine.history(HistoryRequest(id: id, since: 0, limit: 100)).entries
        #expect(history.last?.changes == [HistoryEntry.Change(
            field: "money", from: .money(amount: 8_420, currency: .usd, parts: "1230:household\n990:pharmacy"),
            to: .money(amount: 8_420, currency: .usd))])
        #expect(try allRecords(ledger.engine).first { $0.expense.id == id }?.expense.parts == nil)
    }

    @Test("parts are money: a stale parts edit conflicts with an amount edit; a note edit merges with it", arguments: LedgerStoreKind.allCases)
    func moneyConflict(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var alice = EngineClient(ledger.engine), bob = EngineClient(ledger.engine)
        let id = UUID()
        #expect(try alice.put(id, base: 0, Self.receipt()).reason == nil)
        #expect(try alice.put(id, base: 1, fields(amount: 9_000)).reason == nil)
        #expect(try bob.put(id, base: 1, ["parts": .string("500:household")]).isConflict)
        #expect(try alice.put(id, base: 2, fields(note: "receipt")).reason == nil)
        #expect(try bob.put(id, base: 2, ["parts": .string("500:household")]).reason == nil)
        let record = try #require(try allRecords(ledger.engine).first { $0.expense.id == id })
        #expect(record.expense.note == "receipt" && record.expense.partsText == "500:household" && record.expense.amount == 9_000)
    }

    @Test("summary and stats by category count each part once, equal to the core's count; edits and deletes move them",
          arguments: LedgerStoreKind.allCases)
    func totals(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let receipt = UUID(), other = UUID(), gone = UUID()
        #expect(try client.put(receipt, base: 0, Self.receipt()).reason == nil)
        #expect(try client.put(UUID(), base: 0, lunch(1_000, category: "household", date: "2026-03-05")).reason == nil)
        var second = fields(amount: 5_000, currency: "USD", category: "pharmacy", date: "2026-04-01")
        second["parts"] = .string("100:food")
        #expect(try client.put(other, base: 0, second).reason == nil)
        // Parts only in a cell, then gone: the cell must go too (a part holds an amount and no count).
        var third = fields(amount: 700, currency: "USD", category: "travel", date: "2026-03-09")
        third["parts"] = .string("300:books")
        #expect(try client.put(gone, base: 0, third).reason == nil)
        #expect(try client.delete(gone, base: 1).reason == nil)
        #expect(try client.put(other, base: 1, ["parts": .string("200:food\n300:household")]).reason == nil)
        try expectTotals(ledger.engine, label: "\(kind)")
        if kind == .sqlite, let directory = ledger.directory {
            // Built again from the file at open (the loader reads the parts column).
            let reopened = try SQLiteLedgerStore(path: directory.file("test.sqlite"), name: "test", currency: .usd)
            try expectTotals(LedgerEngine(store: reopened, currency: .usd), label: "reopened")
        }
    }

    private func day(_ text: String) throws -> CalendarDay { try #require(CalendarDay(text)) }

    private func expectTotals(_ engine: LedgerEngine, label: String) throws {
        let expenses = try allRecords(engine).filter { !$0.deleted }.map(\.expense)
        for query in [SummaryQuery(groupBy: .category), SummaryQuery(category: "household", groupBy: .category),
                      SummaryQuery(category: "books"), SummaryQuery(from: try day("2026-03-05"), groupBy: .month),
                      SummaryQuery()] {
            #expect(try engine.summary(query).summary == (try Aggregator.summarize(expenses, query: query)), "\(label) \(query)")
        }
        let byCategory = try engine.summary(SummaryQuery(groupBy: .category)).summary
        // 84.20 − 22.20 + 2.00 of food; 12.30 + 10.00 + 3.00 of household; 9.90 + 45.00 of pharmacy; grand total whole.
        #expect(byCategory.groups.map { "\($0.key) \($0.amount) \($0.count)" }
                == ["food 6400 1", "household 2530 1", "pharmacy 5490 1"], "\(label) \(byCategory)")
        #expect(byCategory.totals.map(\.amount) == [8_420 + 1_000 + 5_000] && byCategory.totals.map(\.count) == [3], "\(label)")
        let months = try StatisticsQuery(period: .month, from: try day("2026-03-01"), to: try day("2026-04-30"), byCategory: true,
                                         today: try day("2026-05-01"))
        #expect(try engine.statistics(months).statistics == (try PeriodStatisticsBuilder.statistics(expenses, query: months)), "\(label)")
    }
}
