import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// An expense's original text (`source`, the bank's text an import read) against every store: stored, pulled and
/// in history as sent, on the fast page as on the general path, absent when empty, refused by the note's rule, and
/// a conflict group of its own (a stale edit of the note beside it merges).
@Suite(.offTheCooperativePool) struct StoreSourceContractTests {
    static func stored(_ ledger: TestLedger, _ id: UUID) throws -> Record {
        try #require(try allRecords(ledger.engine).first { $0.expense.id == id })
    }

    /// A bank's text with what JSON escapes (a quote, a backslash, tab and newline) and text beyond ASCII.
    static let bankText = "REWE SAGT DANKE 4711\t\"Kartenzahlung\"\\n\nM\u{FC}nchen caf\u{E9}"

    @Test("the original text round-trips through the store, its pull page and history; none is absent", arguments: LedgerStoreKind.allCases)
    func roundTrip(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let id = UUID(), plain = UUID()
        var create = fields(amount: 2345, currency: "EUR", category: "Kartenzahlung", date: "2026-12-02", note: "REWE")
        create["source"] = .string(Self.bankText)
        #expect(try client.put(id, base: 0, create).reason == nil)
        #expect(try client.put(plain, base: 0, lunch()).reason == nil)
        #expect(try Self.stored(ledger, id).expense.source == Self.bankText)
        #expect(try Self.stored(ledger, plain).expense.source == "")
        let params = PullRequest(since: 0, limit: 10_000)
        let line = try ledger.engine.pullPage(params).responseLine(id: nil, maximumLineLength: 1 << 24)
        #expect(line == PullPageEncodingTests.referenceLine(try ledger.engine.pull(params), id: nil, maximumLineLength: 1 << 24))
        let text = String(decoding: line, as: UTF8.self)
        var written = JSONWriter()
        written.string(Self.bankText)
        let member = #","source":"# + String(decoding: written.bytes, as: UTF8.self) + #","version":1"#
        #expect(text.contains(member) && text.components(separatedBy: "\"source\"").count == 2, "\(text)")
        let pulled = try ledger.engine.pull(params).changes
        #expect(pulled.first { $0.expense.id == id }?.expense.source == Self.bankText)
        // The client's page decoder (its fast path falls back to the member-by-member one) reads what was stored.
        let answer = try ledger.engine.pullPage(params).responseLine(id: RequestID(1), maximumLineLength: 1 << 24)
        let decoded = try #require(PullPageDecoder.decode(Array(answer)))
        #expect(decoded.result.changes == pulled)
        // An edit of the note leaves the original text as it is.
        #expect(try client.put(id, base: 1, fields(note: "Wocheneinkauf")).reason == nil)
        #expect(try Self.stored(ledger, id).expense.source == Self.bankText)
        #expect(try client.put(id, base: 2, ["source": .string("")]).reason == nil)
        let history = try ledger.engine.history(HistoryRequest(id: id, since: 0, limit: 100)).entries
        #expect(history.first?.changes.first { $0.field == "source" }?.to == .text(Self.bankText))
        #expect(history.last?.changes == [HistoryEntry.Change(field: "source", from: .text(Self.bankText), to: .text(""))])
        let plainHistory = try ledger.engine.history(HistoryRequest(id: plain, since: 0, limit: 100)).entries
        #expect(plainHistory.first?.changes.contains { $0.field == "source" } == false)
    }

    @Test("the original text is refused by the note's rule, naming its own field", arguments: LedgerStoreKind.allCases)
    func refusals(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let id = UUID()
        #expect(try client.put(id, base: 0, lunch()).reason == nil)
        #expect(try client.put(id, base: 1, ["source": .number(JSONNumber(5))]).reason == "invalid_text")
        #expect(try client.put(id, base: 1, ["source": .string("a\u{7}b")]).reason == "invalid_text")
        #expect(try client.put(id, base: 1, ["source": .string(String(repeating: "x", count: 301))]).reason == "source_too_long")
        #expect(try client.put(id, base: 1, ["source": .string(String(repeating: "\u{20AC}", count: 300))]).reason == nil)
        #expect(try client.put(id, base: 2, ["source": .string(String(repeating: "\u{1F600}", count: 301))]).reason == "source_too_long")
    }

    @Test("the original text is a conflict group of its own: a stale edit of it merges with a note edit", arguments: LedgerStoreKind.allCases)
    func ownConflictGroup(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var alice = EngineClient(ledger.engine), bob = EngineClient(ledger.engine)
        let id = UUID()
        var create = lunch()
        create["source"] = .string("EDEKA Center")
        #expect(try alice.put(id, base: 0, create).reason == nil)
        #expect(try alice.put(id, base: 1, fields(note: "Wocheneinkauf")).reason == nil)
        #expect(try bob.put(id, base: 1, ["source": .string("EDEKA Center 0815")]).reason == nil)
        let record = try Self.stored(ledger, id)
        #expect(record.expense.note == "Wocheneinkauf" && record.expense.source == "EDEKA Center 0815")
        #expect(try alice.put(id, base: 2, ["source": .string("other")]).isConflict)
    }
}
