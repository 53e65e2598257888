import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// The rules of Protocol.md §7 ("Mutation semantics"), run against every store: the in-memory reference and SQLite.
@Suite(.offTheCooperativePool) struct StoreContractTests {
    @Test(arguments: LedgerStoreKind.allCases)
    func createDefaultsCurrencyAndNote(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind, currency: try #require(Currency(code: "EUR")))
        var client = EngineClient(ledger.engine)
        let id = UUID()
        #expect(try client.put(id, base: 0, fields(amount: 1250, category: "  food ", date: "2026-11-30")) == .applied(version: 1, seq: 1))
        let record = try #require(try allRecords(ledger.engine).first)
        #expect(record.expense.currency.code == "EUR")
        #expect(record.expense.note == "")
        #expect(record.expense.category == "food")
        #expect(record.expense.id == id)
        #expect(record.version == 1 && record.seq == 1 && !record.deleted)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func validationRejectsAndConsumes(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        #expect(try client.put(UUID(), base: 0, fields(category: "food", date: "2026-11-30")).reason == "missing_field")
        #expect(try client.put(UUID(), base: 0, lunch(0)).reason == "invalid_amount")
        #expect(try client.put(UUID(), base: 0, lunch(9_007_199_254_740_992)).reason == "invalid_amount")
        #expect(try client.put(UUID(), base: 0, fields(amount: 5, currency: "usd", category: "f", date: "2026-01-01")).reason == "invalid_currency")
        #expect(try client.put(UUID(), base: 0, lunch(date: "2026-02-30")).reason == "invalid_date")
        #expect(try client.put(UUID(), base: 0, lunch(category: "   ")).reason == "empty_category")
        var extra = lunch()
        extra["colour"] = .string("red")
        #expect(try client.put(UUID(), base: 0, extra).reason == "unknown_field")
        let malformed = PushItem(mutationId: client.next, decoded: .failure(
            MutationRejection(reason: "invalid_mutation", field: nil, message: "type must be put or delete")))
        #expect(try client.push { _ in malformed }.reason == "invalid_mutation")
        // Every rejection consumed its id: the next one is neither a gap nor a duplicate.
        #expect(try client.put(UUID(), base: 0, lunch()) == .applied(version: 1, seq: 1))
        #expect(try ledger.engine.hello(clientId: client.clientId).lastMutationId == 9)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func duplicateAndGap(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        let clientId = UUID()
        let first = try ledger.engine.push(clientId: clientId, items: [putItem(1, UUID(), base: 0, lunch()),
                                                                       putItem(2, UUID(), base: 0, lunch())])
        #expect(first.results.map(\.status) == [.applied(version: 1, seq: 1), .applied(version: 1, seq: 2)])
        // A replay is duplicate and applies nothing again; a skip ahead is a gap that consumes nothing.
        let again = try ledger.engine.push(clientId: clientId, items: [putItem(2, UUID(), base: 0, lunch()),
                                                                       putItem(4, UUID(), base: 0, lunch()),
                                                                       putItem(3, UUID(), base: 0, lunch()),
                                                                       putItem(3, UUID(), base: 0, lunch())])
        #expect(again.results[0].status == .duplicate(original: .applied(version: 1, seq: 2)))
        #expect(again.results[1].status.reason == "mutation_gap")
        #expect(again.results[2].status == .applied(version: 1, seq: 3))
        #expect(again.results[3].status == .duplicate(original: .applied(version: 1, seq: 3)))
        #expect(again.cursor == 3)
        #expect(try ledger.engine.hello(clientId: clientId) == (3, 3))
        #expect(try ledger.engine.hello(clientId: UUID()) == (3, 0))
        #expect(try allRecords(ledger.engine).count == 3)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func textIsStoredExactlyWithoutNormalisation(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let id = UUID()
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        _ = try client.put(id, base: 0, fields(amount: 100, category: composed, date: "2026-01-01", note: composed))
        // Swift's == calls these equal; the daemon must still store the bytes that were sent.
        #expect(try client.put(id, base: 1, fields(category: decomposed, note: decomposed)) == .applied(version: 2, seq: 2))
        let record = try #require(try allRecords(ledger.engine).first)
        #expect(Array(record.expense.note.unicodeScalars) == Array(decomposed.unicodeScalars))
        #expect(Array(record.expense.category.unicodeScalars) == Array(decomposed.unicodeScalars))
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func editAtCurrentVersionAndNoOp(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let id = UUID()
        _ = try client.put(id, base: 0, fields(amount: 100, category: "food", date: "2026-01-01", note: "a"))
        #expect(try client.put(id, base: 1, fields(amount: 200)) == .applied(version: 2, seq: 2))
        // Nothing changes: applied at the current version, no new version or seq.
        #expect(try client.put(id, base: 2, fields(amount: 200, note: "a")) == .applied(version: 2, seq: 2))
        #expect(try client.put(id, base: 1, fields(amount: 200)) == .applied(version: 2, seq: 2))
        let record = try #require(try allRecords(ledger.engine).first)
        #expect(record.expense.amount == 200 && record.expense.note == "a" && record.version == 2)
        #expect(ledger.engine.store.head == 2)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func olderBaseVersionMergesDisjointEditsAndConflictsOtherwise(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var alice = EngineClient(ledger.engine)
        var bob = EngineClient(ledger.engine)
        let id = UUID()
        _ = try alice.put(id, base: 0, fields(amount: 100, category: "food", date: "2026-01-01"))
        #expect(try alice.put(id, base: 1, fields(amount: 150)) == .applied(version: 2, seq: 2))
        // Bob still at version 1 edits the note: disjoint, merged.
        #expect(try bob.put(id, base: 1, fields(note: "shared")) == .applied(version: 3, seq: 3))
        // Bob at version 1 edits the amount, which changed at version 2: conflict, nothing applied.
        let conflict = try bob.put(id, base: 1, fields(amount: 175, note: "other"))
        let current = try #require(conflict.conflictRecord)
        #expect(current.version == 3 && current.expense.amount == 150 && current.expense.note == "shared")
        // ... unless the value sent is already there; the other sent field is unchanged since 1 → applies.
        #expect(try bob.put(id, base: 1, fields(amount: 150, category: "lunch")) == .applied(version: 4, seq: 4))
        // Category last changed at 4; date at 1: a base of 3 may change the date but not the category.
        #expect(try alice.put(id, base: 3, fields(date: "2026-01-02")) == .applied(version: 5, seq: 5))
        #expect(try alice.put(id, base: 3, fields(category: "dinner")).isConflict)
        let record = try #require(try allRecords(ledger.engine).first)
        #expect(record.expense.category == "lunch" && record.expense.date.description == "2026-01-02")
        #expect(record.expense.amount == 150 && record.version == 5)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func deletesAndTombstones(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let id = UUID()
        _ = try client.put(id, base: 0, lunch())
        _ = try client.put(id, base: 1, fields(note: "x"))
        #expect(try client.delete(id, base: 1).isConflict)  // a delete applies only at the current version
        #expect(try client.delete(id, base: 2) == .applied(version: 3, seq: 3))
        #expect(try client.delete(id, base: 1) == .applied(version: 3, seq: 3))  // deleting a tombstone: any base
        let tombstone = try #require(try allRecords(ledger.engine).first)
        #expect(tombstone.deleted && tombstone.expense.note == "x" && tombstone.expense.amount == 1250)
        // A put on a tombstone conflicts unless at the tombstone's version.
        #expect(try client.put(id, base: 2, fields(amount: 1)).isConflict)
        #expect(try client.put(id, base: 0, lunch()).isConflict)
        #expect(try client.put(id, base: 3, fields(amount: 1)).reason == "missing_field")  // restore needs all
        #expect(try client.put(id, base: 3, lunch(999)) == .applied(version: 4, seq: 4))
        let restored = try #require(try allRecords(ledger.engine).first)
        #expect(!restored.deleted && restored.expense.amount == 999 && restored.expense.note == "")
        #expect(try ledger.engine.summary(SummaryQuery()).summary.totals.first?.amount == 999)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func createOnExistingId(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let id = UUID()
        _ = try client.put(id, base: 0, lunch())
        #expect(try client.put(id, base: 0, lunch()) == .applied(version: 1, seq: 1))
        #expect(try client.put(id, base: 0, lunch(1)).isConflict)
        _ = try client.delete(id, base: 1)
        #expect(try client.put(id, base: 0, lunch()).isConflict)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func notFoundInvalidBaseVersionAndPrecedence(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let id = UUID()
        #expect(try client.put(UUID(), base: 1, lunch()).reason == "not_found")
        #expect(try client.delete(UUID(), base: 0).reason == "not_found")
        #expect(try client.put(UUID(), base: 3, lunch(0)).reason == "not_found")  // (2) before (3)
        _ = try client.put(id, base: 0, lunch())
        #expect(try client.put(id, base: 2, fields(amount: 5)).reason == "invalid_base_version")
        #expect(try client.delete(id, base: 2).reason == "invalid_base_version")
        _ = try client.put(id, base: 1, fields(amount: 5))
        #expect(try client.put(id, base: 1, fields(amount: 0)).reason == "invalid_amount")  // (3) before (4)
        #expect(ledger.engine.store.head == 2)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func overflowAtThe1025thMaximumAmount(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        let clientId = UUID()
        let maximum: Int64 = 9_007_199_254_740_991
        let items = (1...1000).map { putItem(Int64($0), UUID(), base: 0, lunch(maximum)) }
        #expect(try ledger.engine.push(clientId: clientId, items: items).results.allSatisfy {
            if case .applied = $0.status { true } else { false }
        })
        let lastIds = (1001...1024).map { _ in UUID() }
        let more = lastIds.enumerated().map { putItem(Int64(1001 + $0.offset), $0.element, base: 0, lunch(maximum)) }
        let reused = UUID()
        let euro = UUID()
        let result = try ledger.engine.push(clientId: clientId, items: more + [
            putItem(1025, UUID(), base: 0, lunch(maximum)),
            putItem(1026, euro, base: 0, fields(amount: maximum, currency: "EUR", category: "f", date: "2026-01-01")),
            deleteItem(1027, lastIds[0], base: 1),
            putItem(1028, reused, base: 0, lunch(maximum)),
            putItem(1029, lastIds[1], base: 1, fields(amount: maximum)),  // no change: fine
            putItem(1030, reused, base: 1, fields(currency: "EUR")),      // a currency edit moves the amount
            putItem(1031, UUID(), base: 0, lunch(maximum)),               // USD full again (1024)
            putItem(1032, euro, base: 1, fields(currency: "USD")),        // would be the 1025th in USD
            putItem(1033, lastIds[2], base: 1, fields(amount: maximum - 1)),  // smaller: fine
        ])
        #expect(result.results[23].status == .applied(version: 1, seq: 1024))
        #expect(result.results[24].status.reason == "amount_overflow")
        #expect(result.results[25].status == .applied(version: 1, seq: 1025))
        #expect(result.results[26].status == .applied(version: 2, seq: 1026))
        #expect(result.results[27].status == .applied(version: 1, seq: 1027))
        #expect(result.results[28].status == .applied(version: 1, seq: 1002))
        #expect(result.results[29].status == .applied(version: 2, seq: 1028))
        #expect(result.results[30].status == .applied(version: 1, seq: 1029))
        #expect(result.results[31].status.reason == "amount_overflow")
        #expect(result.results[32].status == .applied(version: 2, seq: 1030))
        let totals = try ledger.engine.summary(SummaryQuery()).summary.totals
        #expect(totals.map(\.count) == [2, 1024])
        #expect(totals.map(\.amount) == [2 * maximum, 1024 * maximum - 1])
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func pullPagesInSeqOrder(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let ids = (0..<25).map { _ in UUID() }
        for id in ids { _ = try client.put(id, base: 0, lunch()) }
        _ = try client.put(ids[3], base: 1, fields(note: "moved"))   // seq 26
        _ = try client.delete(ids[7], base: 1)                     // seq 27
        let first = try ledger.engine.pull(PullRequest(since: 0, limit: 10))
        #expect(first.changes.map(\.seq) == [1, 2, 3, 5, 6, 7, 9, 10, 11, 12])
        #expect(first.more && first.cursor == 12)
        let second = try ledger.engine.pull(PullRequest(since: first.cursor, limit: 10))
        #expect(second.changes.map(\.seq) == Array(13...22))
        let third = try ledger.engine.pull(PullRequest(since: second.cursor, limit: 10))
        #expect(third.changes.map(\.seq) == [23, 24, 25, 26, 27])
        #expect(!third.more && third.cursor == 27)
        #expect(third.changes[3].expense.id == ids[3] && third.changes[4].deleted)
        let exact = try ledger.engine.pull(PullRequest(since: 22, limit: 5))
        #expect(!exact.more && exact.cursor == 27)
        let empty = try ledger.engine.pull(PullRequest(since: 27, limit: 1))
        #expect(empty.changes.isEmpty && !empty.more && empty.cursor == 27)
        #expect(throws: LedgerError.invalidCursor(since: 28, head: 27)) { try ledger.engine.pull(PullRequest(since: 28)) }
        #expect(throws: LedgerError.self) { try ledger.engine.pull(PullRequest(since: -1)) }
        // A limit outside PullRequest.limitRange never reaches the engine: PullRequest(params:) answers it
        // invalid_params (MethodCodingTests, ServerProtocolTests.badRequestsKeepTheConnectionOpen).
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func summaryEqualsARecomputationFromRecords(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        var generator = SeededGenerator(seed: 7)
        let categories = ["food", "rent", "travel", "books"]
        let currencies = ["USD", "EUR", "JPY"]
        var live: [UUID: Int64] = [:]  // id → version
        for step in 0..<400 {
            let roll = Int.random(in: 0..<10, using: &generator)
            if roll < 6 || live.isEmpty {
                let id = UUID()
                let day = String(format: "%04d-%02d-%02d", Int.random(in: 2024...2026, using: &generator),
                                 Int.random(in: 1...12, using: &generator), Int.random(in: 1...28, using: &generator))
                let put = fields(amount: Int64.random(in: 1...100_000, using: &generator),
                                 currency: currencies.randomElement(using: &generator),
                                 category: categories.randomElement(using: &generator), date: day)
                if case .applied(let version, _) = try client.put(id, base: 0, put) { live[id] = version }
            } else if let (id, version) = live.randomElement(using: &generator) {
                if roll < 8 {
                    let change = step % 2 == 0 ? fields(amount: Int64.random(in: 1...500, using: &generator))
                                               : fields(currency: currencies.randomElement(using: &generator),
                                                        category: categories.randomElement(using: &generator))
                    if case .applied(let newVersion, _) = try client.put(id, base: version, change) { live[id] = newVersion }
                } else {
                    _ = try client.delete(id, base: version)
                    live[id] = nil
                }
            }
        }
        let expenses = try allRecords(ledger.engine).filter { !$0.deleted }.map(\.expense)
        #expect(expenses.count == live.count)
        let day = { (text: String) in CalendarDay(text) }
        let queries = [
            SummaryQuery(),
            SummaryQuery(groupBy: .category),
            SummaryQuery(groupBy: .month),
            SummaryQuery(from: day("2025-01-01"), to: day("2025-12-31"), groupBy: .month),
            SummaryQuery(from: day("2024-03-15"), to: day("2025-07-09"), groupBy: .category),
            SummaryQuery(from: day("2025-05-10"), to: day("2025-05-20")),
            SummaryQuery(from: day("2024-02-29"), groupBy: .month),
            SummaryQuery(to: day("2025-02-01"), category: " food ", groupBy: .month),
            SummaryQuery(category: "rent"),
            SummaryQuery(from: day("2026-06-01"), to: day("2026-05-01")),
        ]
        for query in queries {
            #expect(try ledger.engine.summary(query).summary == Aggregator.summarize(expenses, query: query), "\(query)")
        }
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func aFailedCommitKeepsNothing(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let id = UUID()
        _ = try client.put(id, base: 0, lunch())
        injectCommitFailure(ledger.faults, true)
        #expect(throws: LedgerError.self) {
            try ledger.engine.push(clientId: client.clientId, items: [putItem(2, id, base: 1, fields(amount: 7)),
                                                                      putItem(3, UUID(), base: 0, lunch())])
        }
        injectCommitFailure(ledger.faults, false)
        #expect(ledger.engine.store.head == 1)
        #expect(try ledger.engine.hello(clientId: client.clientId).lastMutationId == 1)
        #expect(try allRecords(ledger.engine).map(\.expense.amount) == [1250])
        #expect(try ledger.engine.summary(SummaryQuery()).summary.totals.map(\.amount) == [1250])
        // The same ids are not duplicates: they were never consumed.
        let retry = try ledger.engine.push(clientId: client.clientId, items: [putItem(2, id, base: 1, fields(amount: 7))])
        #expect(retry.results[0].status == .applied(version: 2, seq: 2))
    }
}

struct InjectedFailure: Error {}

/// Makes every commit of the store `faults` was given to fail (`on`), or none.
func injectCommitFailure(_ faults: StoreFaults, _ on: Bool) {
    guard on else { return faults.inject(nil) }
    faults.inject { point in point == .commit ? InjectedFailure() : nil }
}

