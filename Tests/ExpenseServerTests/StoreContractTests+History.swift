import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// The history and compaction rules of Protocol.md §5.8 and §5.9, against every store.
@Suite(.offTheCooperativePool) struct StoreHistoryContractTests {
    private func entries(_ engine: LedgerEngine, id: UUID? = nil, since: Int64 = 0, sinceTime: Int64? = nil) throws -> [HistoryEntry] {
        try engine.history(HistoryRequest(id: id, since: since, sinceTime: sinceTime, limit: 1000)).entries
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func everyAppliedChangeHasOneEntryWithWhoAndWhen(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        ledger.engine.clock = { 1_764_590_400 }
        let clientId = UUID(), id = UUID(), other = UUID()
        let pushes: [(clientId: UUID, items: [PushItem], who: String?)] = [
            (clientId, [putItem(1, id, base: 0, fields(amount: 500, currency: "EUR", category: "food", date: "2026-11-30", note: "lunch")),
                        putItem(2, id, base: 1, fields(note: "team lunch")),
                        putItem(3, id, base: 2, fields(note: "team lunch")),  // changes nothing: no entry
                        putItem(4, id, base: 2, fields(amount: 500, currency: "JPY")),
                        putItem(5, id, base: 1, fields(amount: 9)),  // conflict: no entry
                        deleteItem(6, id, base: 3)], "laptop"),
            (UUID(), [putItem(1, other, base: 0, lunch()), putItem(2, id, base: 4, fields(amount: 7, category: "food", date: "2026-12-01"))], nil),
        ]
        _ = try ledger.engine.apply(pushes)
        let all = try entries(ledger.engine)
        #expect(all.map(\.seq) == [1, 2, 3, 4, 5, 6])
        #expect(all.map(\.action) == [.create, .edit, .edit, .delete, .create, .restore])
        let mine = try entries(ledger.engine, id: id)
        #expect(mine.map(\.version) == [1, 2, 3, 4, 5])
        #expect(mine[0].changes.map(\.field) == ["money", "category", "date", "note"] && mine[0].changes.allSatisfy { $0.from == nil })
        #expect(mine[1].changes == [HistoryEntry.Change(field: "note", from: .text("lunch"), to: .text("team lunch"))])
        // Money is one field: a change of the currency alone shows the whole pair before and after.
        let eur = try #require(Currency(code: "EUR")), jpy = try #require(Currency(code: "JPY"))
        #expect(mine[2].changes == [HistoryEntry.Change(field: "money", from: .money(amount: 500, currency: eur),
                                                        to: .money(amount: 500, currency: jpy))])
        #expect(mine[3].changes.isEmpty && mine[3].who == "laptop" && mine[3].clientId == clientId)
        #expect(mine[4].action == .restore && mine[4].who == nil && mine[4].changes.map(\.field) == ["money", "date", "note"])
        #expect(all.allSatisfy { $0.time == 1_764_590_400 })
        // Paging: since a seq, and a limit.
        #expect(try entries(ledger.engine, since: 4).map(\.seq) == [5, 6])
        let page = try ledger.engine.history(HistoryRequest(since: 0, limit: 2))
        #expect(page.entries.map(\.seq) == [1, 2] && page.more && page.cursor == 2)
        let last = try ledger.engine.history(HistoryRequest(since: 4, limit: 2))
        #expect(!last.more && last.cursor == 6 && last.horizon == 0)
        #expect(try entries(ledger.engine, id: id, since: 3).map(\.version) == [4, 5])
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func aFailedCommitKeepsNoHistory(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        _ = try client.put(UUID(), base: 0, lunch())
        injectCommitFailure(ledger.faults, true)
        #expect(throws: (any Error).self) { try ledger.engine.push(clientId: client.clientId, items: [putItem(2, UUID(), base: 0, lunch())]) }
        injectCommitFailure(ledger.faults, false)
        #expect(try entries(ledger.engine).map(\.seq) == [1])
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func sinceTimeFiltersByTheDaemonsClock(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        ledger.engine.clock = { 1000 }
        _ = try client.put(UUID(), base: 0, lunch())
        ledger.engine.clock = { 2000 }
        _ = try client.put(UUID(), base: 0, lunch())
        #expect(try entries(ledger.engine, sinceTime: 1500).map(\.seq) == [2])
        #expect(try entries(ledger.engine, sinceTime: 1000).map(\.seq) == [1, 2])
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func compactionRemovesOldEntriesAndPurgesTombstonesFromPullsFromZero(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let now = HistoryAuthor.now()
        ledger.engine.clock = { now - 40 * 86_400 }
        let kept = UUID(), gone = UUID()
        _ = try client.put(kept, base: 0, lunch())          // 1
        _ = try client.put(gone, base: 0, lunch())          // 2
        _ = try client.delete(gone, base: 1)                // 3
        ledger.engine.clock = { now }
        let young = UUID()
        _ = try client.put(young, base: 0, lunch())         // 4
        _ = try client.delete(young, base: 1)               // 5: a young tombstone stays
        let report = try ledger.engine.compact(before: LedgerDirectory.cutoff(keepDays: 30, now: now))
        #expect(report.horizon == 3 && report.tombstones == 1 && report.entries == 3)
        let records = try allRecords(ledger.engine)
        #expect(records.map(\.expense.id) == [kept, young] && records.map(\.seq) == [1, 5])
        #expect(try entries(ledger.engine).map(\.seq) == [4, 5])
        #expect(try ledger.engine.summary(SummaryQuery()).summary.totals.map(\.amount) == [1250])
        // From 0 the purged tombstone is left out; from a cursor below it, it comes (that client may hold the
        // expense live); no cursor is expired, so a pull from 0 continues past its first page.
        #expect(try ledger.engine.pull(PullRequest(since: 0)).changes.map(\.seq) == [1, 5])
        #expect(try ledger.engine.pull(PullRequest(since: 2)).changes.map(\.seq) == [3, 5])
        #expect(try ledger.engine.pull(PullRequest(since: 1)).changes.map(\.deleted) == [true, true])
        #expect(try ledger.engine.pull(PullRequest(since: 3)).changes.count == 1)
        let firstPage = try ledger.engine.pull(PullRequest(since: 0, limit: 1))
        #expect(firstPage.changes.map(\.seq) == [1] && firstPage.more && firstPage.cursor == 1)
        #expect(try ledger.engine.pull(PullRequest(since: firstPage.cursor)).changes.map(\.seq) == [3, 5])
        // The head's row stays whatever its age: the next change never reuses a seq.
        let everything = try ledger.engine.compact(before: now + 10)
        #expect(everything.horizon == 4)
        #expect(try allRecords(ledger.engine).map(\.seq) == [1, 5])
        #expect(try client.put(UUID(), base: 0, lunch()) == .applied(version: 1, seq: 6))
        #expect(try ledger.engine.history(HistoryRequest()).horizon == 4)
    }

    /// A pull from 0 that goes on past its first page says when it began (`snapshot`: the head then): its later
    /// pages leave out the tombstones purged at or below it (the reader started with nothing and never saw those
    /// records live), on every store; a tombstone made after it began is carried even once purged.
    @Test(arguments: LedgerStoreKind.allCases)
    func aPullFromZeroLeavesPurgedTombstonesOutOfEveryPage(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let now = HistoryAuthor.now()
        ledger.engine.clock = { now - 40 * 86_400 }
        let live = (0..<4).map { _ in UUID() }, gone = (0..<3).map { _ in UUID() }
        for id in live { _ = try client.put(id, base: 0, lunch()) }                         // 1–4
        for id in gone { _ = try client.put(id, base: 0, lunch()) }                         // 5–7
        for id in gone { _ = try client.delete(id, base: 1) }                               // 8–10
        ledger.engine.clock = { now }
        let later = UUID()
        _ = try client.put(later, base: 0, lunch())                                         // 11
        #expect(try ledger.engine.compact(before: LedgerDirectory.cutoff(keepDays: 30, now: now)).tombstones == 3)
        // Page by page from 0, the snapshot the head when it began: no purged tombstone on any page.
        let snapshot = ledger.engine.store.head
        var since: Int64 = 0, seqs: [Int64] = []
        while true {
            let page = try ledger.engine.pull(PullRequest(since: since, limit: 2, snapshot: since == 0 ? nil : snapshot))
            seqs += page.changes.map(\.seq)
            #expect(page.changes.allSatisfy { !$0.deleted }, "\(page.changes)")
            since = page.cursor
            if !page.more { break }
        }
        #expect(seqs == [1, 2, 3, 4, 11])
        // Without a snapshot a cursor above 0 gets them (a late client may hold the expenses live).
        #expect(try ledger.engine.pull(PullRequest(since: 4)).changes.map(\.seq) == [8, 9, 10, 11])
        // Deleted after the pull began and purged before its next page: still carried (it may have been seen live).
        _ = try client.delete(later, base: 1)                                               // 12
        _ = try client.put(UUID(), base: 0, lunch())                                        // 13: the head stays
        #expect(try ledger.engine.compact(before: now + 10).horizon == 12)
        #expect(try ledger.engine.pull(PullRequest(since: 4, snapshot: snapshot)).changes.map(\.seq) == [12, 13])
    }

    /// A purged tombstone leaves every pull but not the ledger: a create of its id (a healing client re-sending
    /// its edit as the whole expense, an import or an occurrence of the same id) meets the deletion as an
    /// edit-versus-delete conflict; a delete is the deletion it already is; a restore at its version revives it.
    @Test(arguments: LedgerStoreKind.allCases)
    func aPurgedDeletionStaysADeletion(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let now = HistoryAuthor.now()
        ledger.engine.clock = { now - 40 * 86_400 }
        let gone = UUID(), edited = UUID(), occurrence = UUID()
        _ = try client.put(gone, base: 0, lunch())                                          // 1
        _ = try client.delete(gone, base: 1)                                                // 2
        _ = try client.put(edited, base: 0, lunch())                                        // 3
        _ = try client.delete(edited, base: 1)                                              // 4
        _ = try client.put(occurrence, base: 0, lunch())                                    // 5
        _ = try client.delete(occurrence, base: 1)                                          // 6
        ledger.engine.clock = { now }
        _ = try client.put(UUID(), base: 0, lunch())                                        // 7: the head stays
        let report = try ledger.engine.compact(before: LedgerDirectory.cutoff(keepDays: 30, now: now))
        #expect(report.horizon == 6 && report.tombstones == 3 && report.entries == 6, "\(report)")
        #expect(try ledger.engine.pull(PullRequest(since: 0)).changes.map(\.seq) == [7])
        #expect(try ledger.engine.compact(before: now - 30 * 86_400).tombstones == 0, "a purge is counted once")

        guard case .conflict(let current) = try client.put(gone, base: 0, fields(amount: 900, category: "rent", date: "2026-03-01")) else {
            Issue.record("a create of a purged id must meet its deletion")
            return
        }
        #expect(current.deleted && current.version == 2 && current.seq == 2 && current.expense.id == gone
                && current.expense.amount == 1250 && current.expense.category == "food", "the tombstone keeps its last values")
        // An edit made before the deletion was seen (base 1, one field) meets it too.
        guard case .conflict = try client.put(edited, base: 1, fields(note: "late")) else {
            Issue.record("an edit of a purged tombstone must meet its deletion")
            return
        }
        #expect(try client.delete(gone, base: 2) == .applied(version: 2, seq: 2))
        let anOccurrence = try client.push { mutationId in
            PushItem(mutationId: mutationId, decoded: .success(Mutation(mutationId: mutationId, type: .put, id: occurrence, baseVersion: 0,
                                                                        fields: lunch(), ifAbsent: true)))
        }
        #expect(anOccurrence == .applied(version: 2, seq: 6), "an occurrence whose deletion was purged stays deleted")
        #expect(try client.put(gone, base: 2, lunch()) == .applied(version: 3, seq: 8))
        #expect(try ledger.engine.summary(SummaryQuery()).summary.totals.map(\.amount) == [2500])
    }
}
