import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer
import SQLite

/// A `duplicate` answer carries what was decided when its id was consumed, for each client's latest
/// `outcomeRetention` mutations (Protocol.md §5.2, §7.6), with both stores.
@Suite(.offTheCooperativePool) struct OutcomeRetentionTests {
    /// PostgreSQL's schemas, kept until the test ends (a test's own schema is dropped when its value goes).
    private let schemas = SchemaKeeper()

    private func engine(_ kind: LedgerStoreKind, retention: Int64, path: String, faults: StoreFaults? = nil) throws -> LedgerEngine {
        switch kind {
        case .memory: LedgerEngine(store: InMemoryLedgerStore(outcomeRetention: retention, faults: faults), currency: .usd)
        case .sqlite: LedgerEngine(store: try SQLiteLedgerStore(path: path, name: "t", currency: .usd, outcomeRetention: retention,
                                                                faults: faults),
                                   currency: .usd)
        case .postgres: LedgerEngine(store: try schemas.store(outcomeRetention: retention, faults: faults),
                                     currency: .usd)
        }
    }

    private func keptCount(_ engine: LedgerEngine, _ clientId: UUID) throws -> Int {
        if let memory = engine.store as? InMemoryLedgerStore { return memory.keptOutcomeCount(clientId: clientId) }
        if let postgres = engine.store as? PostgresLedgerStore { return try postgres.keptOutcomeCount(clientId: clientId) }
        return try #require(engine.store as? SQLiteLedgerStore).keptOutcomeCount(clientId: clientId)
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func eachOutcomeIsRepeatedByItsDuplicate(kind: LedgerStoreKind) throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let engine = try engine(kind, retention: 100, path: directory + "/l.sqlite")
        let ann = UUID(), bob = UUID(), id = UUID()
        _ = try engine.push(clientId: ann, items: [putItem(1, id, base: 0, lunch())])
        _ = try engine.push(clientId: bob, items: [putItem(1, id, base: 1, fields(amount: 2000))])
        let first = try engine.push(clientId: ann, items: [
            putItem(2, id, base: 1, fields(amount: 3000)),              // conflict with bob's amount
            putItem(3, UUID(), base: 0, lunch(0)),                      // rejected
            PushItem(mutationId: 4, decoded: .failure(MutationRejection(reason: "invalid_mutation", field: "type", message: "bad"))),
        ])
        #expect(first.results[0].status.isConflict)
        // Bob edits again: a conflict's duplicate carries the record as it is now.
        _ = try engine.push(clientId: bob, items: [putItem(2, id, base: 2, fields(note: "now"))])
        let again = try engine.push(clientId: ann, items: [putItem(1, UUID(), base: 0, lunch()), putItem(2, id, base: 1, fields()),
                                                           putItem(3, UUID(), base: 0, lunch()), putItem(4, UUID(), base: 0, lunch())])
        #expect(again.results[0].status == .duplicate(original: .applied(version: 1, seq: 1)))
        guard case .duplicate(.conflict(let current)?) = again.results[1].status else {
            Issue.record("\(again.results[1].status)")
            return
        }
        #expect(current.version == 3 && current.expense.note == "now" && current.expense.amount == 2000)
        guard case .duplicate(.rejected(let rejection)?) = again.results[2].status else {
            Issue.record("\(again.results[2].status)")
            return
        }
        #expect(rejection.reason == "invalid_amount" && rejection.field == "amount")
        #expect(again.results[3].status == .duplicate(original: .rejected(
            MutationRejection(reason: "invalid_mutation", field: "type", message: "bad"))))
        // Another client's ids are its own.
        let bobs = try engine.push(clientId: bob, items: [putItem(1, UUID(), base: 0, lunch())])
        #expect(bobs.results[0].status == .duplicate(original: .applied(version: 2, seq: 2)))
        #expect(try allRecords(engine).count == 1)
    }

    /// The window: a client keeps the outcomes of its latest `retention` mutations only, pruned as it pushes,
    /// in the same transaction; older duplicates carry no original (the client then pulls and compares).
    @Test(arguments: LedgerStoreKind.allCases)
    func outcomesOutsideTheWindowArePruned(kind: LedgerStoreKind) throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let path = directory + "/l.sqlite"
        let faults = StoreFaults()
        let engine = try engine(kind, retention: 10, path: path, faults: faults)
        let ann = UUID(), bob = UUID()
        for batch in 0..<5 {
            let items = (1...5).map { offset in putItem(Int64(batch * 5 + offset), UUID(), base: 0, lunch()) }
            _ = try engine.push(clientId: ann, items: items)
            #expect(try keptCount(engine, ann) == min(10, (batch + 1) * 5))
        }
        _ = try engine.push(clientId: bob, items: [putItem(1, UUID(), base: 0, lunch())])
        #expect(try keptCount(engine, ann) == 10 && keptCount(engine, bob) == 1)
        let replay = try engine.push(clientId: ann, items: (1...25).map { putItem(Int64($0), UUID(), base: 0, lunch()) })
        for (index, result) in replay.results.enumerated() {
            let mutationId = Int64(index + 1)
            // Ann's mutation m was applied as the m-th record (seq m); only 16…25 are inside the window.
            let expected: MutationOutcome? = mutationId > 15 ? .applied(version: 1, seq: mutationId) : nil
            #expect(result.status == .duplicate(original: expected), "mutation \(mutationId)")
        }
        // A failed commit keeps no outcome and prunes nothing.
        injectCommitFailure(faults, true)
        #expect(throws: (any Error).self) { try engine.push(clientId: ann, items: [putItem(26, UUID(), base: 0, lunch())]) }
        injectCommitFailure(faults, false)
        #expect(try keptCount(engine, ann) == 10)
        #expect(try engine.push(clientId: ann, items: [putItem(16, UUID(), base: 0, lunch())]).results[0].status
            == .duplicate(original: .applied(version: 1, seq: 16)))
        if kind == .sqlite {
            let reopened = try self.engine(.sqlite, retention: 10, path: path)
            #expect(try keptCount(reopened, ann) == 10)
            #expect(try reopened.push(clientId: ann, items: [putItem(25, UUID(), base: 0, lunch())]).results[0].status
                == .duplicate(original: .applied(version: 1, seq: 25)))
        }
    }

    /// The default window bounds what the daemon keeps per client: 10,000 outcomes however many it consumed.
    @Test func theDefaultWindowHoldsTenThousandPerClient() throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let store = try SQLiteLedgerStore(path: directory + "/l.sqlite", name: "t", currency: .usd)
        let engine = LedgerEngine(store: store, currency: .usd)
        #expect(store.outcomeRetention == 10_000)
        let ann = UUID()
        var next: Int64 = 1
        for _ in 0..<11 {
            let items = (0..<1000).map { _ in
                defer { next += 1 }
                return putItem(next, UUID(), base: 0, lunch())
            }
            _ = try engine.push(clientId: ann, items: items)
        }
        #expect(try store.keptOutcomeCount(clientId: ann) == 10_000)
        let edge = try engine.push(clientId: ann, items: [putItem(1000, UUID(), base: 0, lunch()), putItem(1001, UUID(), base: 0, lunch())])
        #expect(edge.results[0].status == .duplicate(original: nil))
        #expect(edge.results[1].status == .duplicate(original: .applied(version: 1, seq: 1001)))
    }

    /// A ledger written before outcomes were kept (schema 1) is brought forward at open: its clients' earlier
    /// ids stay duplicates, without an original (the client then pulls and compares); new ones keep theirs.
    @Test func aLedgerFromBeforeOutcomesMigratesAndAnswersWithout() throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let path = directory + "/old.sqlite"
        let ann = UUID()
        do {
            let connection = try SQLiteConnection(path: path)
            try connection.migrate(Array(SQLiteLedgerStore.migrations.prefix(1)))
            try connection.execute("INSERT INTO meta (key, value) VALUES ('name', 'old'), ('currency', 'USD')")
            try connection.cached("INSERT INTO clients (id, last_mutation_id) VALUES (?1, 3)").run([SQLiteLedgerStore.blob(ann)])
        }
        let store = try SQLiteLedgerStore(path: path, name: "ignored", currency: .usd, verify: true)
        #expect(try store.connection.userVersion == SQLiteLedgerStore.migrations.count)
        let engine = LedgerEngine(store: store, currency: .usd)
        let results = try engine.push(clientId: ann, items: [putItem(3, UUID(), base: 0, lunch()), putItem(4, UUID(), base: 0, lunch()),
                                                             putItem(4, UUID(), base: 0, lunch())]).results.map(\.status)
        #expect(results == [.duplicate(original: nil), .applied(version: 1, seq: 1), .duplicate(original: .applied(version: 1, seq: 1))])
    }
}
