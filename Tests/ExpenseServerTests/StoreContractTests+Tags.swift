import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// An expense's tags against every store: stored, pulled and in history as sent (sorted, each once), on the fast
/// page as on the general path, and merged as a set with a concurrent tag edit by the one conflict rule, from the
/// history of the edit's base (an ordinary conflict once that history is compacted away).
@Suite(.offTheCooperativePool) struct StoreTagsContractTests {
    static func tags(_ names: String...) -> [String: JSONValue] { ["tags": .array(names.map(JSONValue.string))] }

    static func stored(_ ledger: TestLedger, _ id: UUID) throws -> Record {
        try #require(try allRecords(ledger.engine).first { $0.expense.id == id })
    }

    @Test("tags round-trip through the store, its pull page and history, sorted and once; none is absent", arguments: LedgerStoreKind.allCases)
    func roundTrip(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let id = UUID(), plain = UUID()
        var create = fields(amount: 1250, currency: "EUR", category: "food", date: "2026-03-04")
        create["tags"] = .array(["work", "trip-2026", "caf\u{E9}", "cafe\u{301}", "work"].map(JSONValue.string))
        #expect(try client.put(id, base: 0, create).reason == nil)
        #expect(try client.put(plain, base: 0, lunch()).reason == nil)
        #expect(try Self.stored(ledger, id).expense.tags == ["cafe\u{301}", "caf\u{E9}", "trip-2026", "work"])
        #expect(try Self.stored(ledger, plain).expense.tags == [])
        let params = PullRequest(since: 0, limit: 10_000)
        let line = try ledger.engine.pullPage(params).responseLine(id: nil, maximumLineLength: 1 << 24)
        #expect(line == PullPageEncodingTests.referenceLine(try ledger.engine.pull(params), id: nil, maximumLineLength: 1 << 24))
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.contains(#""split"#) == false && text.contains(#""tags":["cafe\#u{301}","caf\#u{E9}","trip-2026","work"],"version":1"#)
                && text.components(separatedBy: "\"tags\"").count == 2, "\(text)")
        #expect(try client.put(id, base: 1, Self.tags()).reason == nil)
        let history = try ledger.engine.history(HistoryRequest(id: id, since: 0, limit: 100)).entries
        #expect(history.first?.changes.first { $0.field == "tags" }?.to == .text("cafe\u{301},caf\u{E9},trip-2026,work"))
        #expect(history.last?.changes == [HistoryEntry.Change(field: "tags", from: .text("cafe\u{301},caf\u{E9},trip-2026,work"), to: .text(""))])
        #expect(try Self.stored(ledger, id).expense.tags == [])
        #expect(try client.put(id, base: 2, Self.tags("a b")).reason == "invalid_tags")
        #expect(try client.put(id, base: 2, ["tags": .string("a")]).reason == "invalid_tags")
    }

    @Test("a stale tag edit merges with a concurrent one as a set; one adding a tag removed since is a conflict", arguments: LedgerStoreKind.allCases)
    func merge(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var alice = EngineClient(ledger.engine), bob = EngineClient(ledger.engine)
        let id = UUID()
        var create = fields(amount: 1250, currency: "EUR", category: "food", date: "2026-03-04")
        create["tags"] = .array([.string("base")])
        #expect(try alice.put(id, base: 0, create).reason == nil)
        #expect(try alice.put(id, base: 1, Self.tags("base", "both", "trip")).reason == nil)
        // Made on version 1: `both` added on both sides is one tag, `work` and the removal of `base` merge.
        #expect(try bob.put(id, base: 1, Self.tags("both", "work")) == .applied(version: 3, seq: 3))
        #expect(try Self.stored(ledger, id).expense.tags == ["both", "trip", "work"])
        // With a note edit beside it: the note is the edit's, the tags merged.
        #expect(try bob.put(id, base: 2, Self.tags("both", "trip", "work", "new").merging(fields(note: "lunch")) { $1 }).reason == nil)
        let record = try Self.stored(ledger, id)
        #expect(record.expense.tags == ["both", "new", "trip", "work"] && record.expense.note == "lunch")
        // Alice removes `new` and adds it back; Bob, on the version before, removes it: they disagree on `new`.
        #expect(try alice.put(id, base: 4, Self.tags("both", "trip", "work")).reason == nil)
        #expect(try alice.put(id, base: 5, Self.tags("both", "new", "trip", "work")).reason == nil)
        #expect(try bob.put(id, base: 4, Self.tags("both", "trip", "work")).isConflict)
        // Bob adds `x` on version 4 (before the removal and re-addition of `new`), keeping `new`: `x` merges.
        #expect(try bob.put(id, base: 4, Self.tags("both", "new", "trip", "work", "x")).reason == nil)
        #expect(try Self.stored(ledger, id).expense.tags == ["both", "new", "trip", "work", "x"])
        // A merge that would hold more than 16 tags is for a person to decide.
        let many = (1...8).map { "a\($0)" }, more = (1...8).map { "b\($0)" }
        #expect(try alice.put(id, base: 7, ["tags": .array(many.map(JSONValue.string))]).reason == nil)
        #expect(try bob.put(id, base: 7, ["tags": .array((more + ["c"]).map(JSONValue.string))]).isConflict)
    }

    @Test("once the history of the edit's base is compacted away, a stale tag edit is an ordinary conflict", arguments: LedgerStoreKind.allCases)
    func compactedBaseConflicts(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var alice = EngineClient(ledger.engine), bob = EngineClient(ledger.engine)
        let now = HistoryAuthor.now()
        ledger.engine.clock = { now - 40 * 86_400 }
        let id = UUID()
        #expect(try alice.put(id, base: 0, fields(amount: 1250, currency: "EUR", category: "food", date: "2026-03-04")).reason == nil)
        #expect(try alice.put(id, base: 1, Self.tags("trip")).reason == nil)
        #expect(try alice.put(UUID(), base: 0, lunch()).reason == nil)  // the head, whose entry compaction keeps
        ledger.engine.clock = { now }
        _ = try ledger.engine.compact(before: LedgerDirectory.cutoff(keepDays: 30, now: now))
        #expect(try bob.put(id, base: 1, Self.tags("work")).isConflict)
        #expect(try Self.stored(ledger, id).expense.tags == ["trip"])
    }
}
