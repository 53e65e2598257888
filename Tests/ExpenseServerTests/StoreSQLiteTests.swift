import TestSupport
import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
@testable import ExpenseServer

/// What only the SQLite store has to prove: everything the rules need survives a close and reopen.
@Suite struct StoreSQLiteTests {
    @Test func reopenKeepsFieldVersionsClientsTotalsAndAggregates() throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let path = directory + "/l.sqlite"
        let maximum: Int64 = 9_007_199_254_740_991
        let id = UUID()
        let clientId = UUID()
        do {
            let engine = LedgerEngine(store: try SQLiteLedgerStore(path: path, name: "l", currency: .usd), currency: .usd)
            var items = [putItem(1, id, base: 0, lunch()), putItem(2, id, base: 1, fields(amount: 99))]
            items += (3...1026).map { putItem(Int64($0), UUID(), base: 0, lunch(maximum)) }  // 1024 maxima: USD is full
            _ = try engine.apply([(clientId, Array(items[..<600])), (clientId, Array(items[600...]))])
        }
        let store = try SQLiteLedgerStore(path: path, name: "ignored", currency: .usd, verify: true)
        #expect(store.name == "l" && store.head == 1026)
        let engine = LedgerEngine(store: store, currency: .usd)
        #expect(try engine.hello(clientId: clientId) == (1026, 1026))
        let result = try engine.push(clientId: clientId, items: [
            putItem(1026, UUID(), base: 0, lunch()),                 // duplicate after reopen
            putItem(1027, id, base: 1, fields(note: "merged")),      // note unchanged since 1: merges
            putItem(1028, id, base: 1, fields(amount: 5)),           // amount changed at 2: conflict
            putItem(1029, UUID(), base: 0, lunch(maximum)),          // the 1025th maximum: overflow
        ])
        #expect(result.results.map(\.status)[0].isDuplicate)
        #expect(result.results.map(\.status)[1] == .applied(version: 3, seq: 1027))
        #expect(result.results.map(\.status)[2].isConflict)
        #expect(result.results.map(\.status)[3].reason == "amount_overflow")
        let expenses = try allRecords(engine).filter { !$0.deleted }.map(\.expense)
        #expect(try engine.summary(SummaryQuery(groupBy: .month)).summary == Aggregator.summarize(expenses, query: SummaryQuery(groupBy: .month)))
    }

    /// The store keeps each client's last consumed mutationId in memory and writes it once per commit: a commit
    /// that fails must leave neither the copy nor the file advanced, and a client pushing twice in one group
    /// commit must find both pushes accounted for after a reopen.
    @Test func lastMutationIdsFollowCommitsOnly() throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let path = directory + "/l.sqlite"
        let clientId = UUID()
        let other = UUID()
        do {
            let faults = StoreFaults()
            let store = try SQLiteLedgerStore(path: path, name: "l", currency: .usd, faults: faults)
            let engine = LedgerEngine(store: store, currency: .usd)
            _ = try engine.push(clientId: clientId, items: [putItem(1, UUID(), base: 0, lunch())])
            faults.inject { $0 == .commit ? LedgerError.storageFull("test") : nil }
            #expect(throws: (any Error).self) {
                try engine.apply([(clientId, [putItem(2, UUID(), base: 0, lunch())]), (other, [putItem(1, UUID(), base: 0, lunch())])])
            }
            faults.inject(nil)
            #expect(try engine.hello(clientId: clientId) == (1, 1))
            #expect(try engine.hello(clientId: other) == (1, 0))
            let results = try engine.apply([
                (clientId, [putItem(2, UUID(), base: 0, lunch())]),
                (other, [putItem(1, UUID(), base: 0, lunch())]),
                (clientId, [putItem(3, UUID(), base: 0, lunch()), putItem(2, UUID(), base: 0, lunch())]),
            ])
            #expect(results.map { $0.results.map(\.status) } == [
                [.applied(version: 1, seq: 2)], [.applied(version: 1, seq: 3)], [.applied(version: 1, seq: 4), .duplicate(original: .applied(version: 1, seq: 2))],
            ])
        }
        let engine = LedgerEngine(store: try SQLiteLedgerStore(path: path, name: "l", currency: .usd), currency: .usd)
        #expect(try engine.hello(clientId: clientId) == (4, 3))
        #expect(try engine.hello(clientId: other) == (4, 1))
    }

    /// Opening a ledger reads the whole file once (the check, then the in-memory indexes' load). Those pages are
    /// a single pass, not what pushes and pulls come back to: the open must not leave its cache full of them (a
    /// daemon serving a million expenses held 8.5 MiB of them from every open on).
    @Test func openingLeavesNoPassOverTheFileInTheCache() throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let path = directory + "/l.sqlite"
        let clientId = UUID()
        do {
            let engine = LedgerEngine(store: try SQLiteLedgerStore(path: path, name: "l", currency: .usd), currency: .usd)
            let items = (1...20_000).map { putItem(Int64($0), UUID(), base: 0, lunch(Int64($0), category: "c\($0 % 50)")) }
            _ = try engine.apply([(clientId, items)])
        }
        let fileBytes = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(fileBytes > 1 << 20, "the file must be larger than what the open may keep")
        let store = try SQLiteLedgerStore(path: path, name: "l", currency: .usd, verify: true)
        #expect(store.head == 20_000)
        #expect(store.connection.pageCacheBytes < SQLiteLedgerStore.openCacheKiB * 1024 * 2)
        // The work after the open still gets the whole cache.
        _ = try LedgerEngine(store: store, currency: .usd).push(clientId: clientId, items: [putItem(20_001, UUID(), base: 0, lunch())])
        #expect(try store.connection.prepare("PRAGMA cache_size").first { $0.int64(0) } == -Int64(SQLiteLedgerStore.workCacheKiB))
    }
}
