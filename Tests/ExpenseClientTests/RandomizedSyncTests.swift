import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import Foundation
import Testing
import TestSupport

/// Four clients, a seeded random mix of 2,000 adds, edits, deletes, syncs and conflict resolutions, then a
/// final sync round: every client equals the daemon, the daemon's summary equals a recomputation from its
/// records, and every acknowledged change is present or superseded by a later acknowledged change.
/// Set `EXPENSE_SYNC_SEED` to replay a run; the seed is printed on failure.
@Suite struct RandomizedSyncTests {
    struct Acknowledged: Sendable {
        var entry: PendingMutation
        var version: Int64
    }

    @Test func fourClientsConverge() async throws {
        let seed = ProcessInfo.processInfo.environment["EXPENSE_SYNC_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        let daemon = try TestDaemon()
        let acknowledged = LockedValue<[Acknowledged]>([])
        let clients = try (1...4).map { index in
            let client = try TestClient("client\(index)", persistent: index == 1)
            client.onApplied = { entry, version in acknowledged.set(acknowledged.get() + [Acknowledged(entry: entry, version: version)]) }
            return client
        }
        let engines = clients.map { $0.engine(daemon) }
        let rounds = try await onThread { [engines] in try Self.simulate(clients: clients, engines: engines, seed: seed, operations: 2000) }
        let comment = Comment(rawValue: "seed \(seed) (replay with EXPENSE_SYNC_SEED=\(seed))")
        #expect(rounds <= 6, comment)

        let records = try await daemon.records()
        let server = liveExpenses(records)
        for client in clients {
            #expect(try client.live() == server, comment)
            #expect(try client.ledger.store.pendingCount() == 0, comment)
            #expect(try client.ledger.store.conflicts().isEmpty, comment)
        }
        for grouping in [SummaryGrouping.none, .category, .month] {
            let query = SummaryQuery(groupBy: grouping)
            let daemonSummary = try await daemon.ledger.summary(query).summary
            #expect(daemonSummary == (try Aggregator.summarize(Array(server.values), query: query)), comment)
        }
        let acks = acknowledged.get()
        #expect(acks.count > 500, comment)
        for ack in acks {
            let record = try #require(records[ack.entry.id], comment)
            let later = acks.filter { $0.entry.id == ack.entry.id && $0.version > ack.version }
            #expect(record.version >= ack.version, comment)
            switch ack.entry.type {
            case .delete:
                #expect(record.deleted || later.contains { $0.entry.type == .put }, comment)
            case .put:
                if record.deleted { #expect(later.contains { $0.entry.type == .delete }, comment) }
                let fields = ack.entry.fields
                let expense = record.expense
                func superseded(_ set: (ExpenseDraft) -> Bool) -> Bool { later.contains { $0.entry.type == .put && set($0.entry.fields) } }
                if let value = fields.amount, value != expense.amount { #expect(superseded { $0.amount != nil }, comment) }
                if let value = fields.category, value != expense.category { #expect(superseded { $0.category != nil }, comment) }
                if let value = fields.note, value != expense.note { #expect(superseded { $0.note != nil }, comment) }
                if let value = fields.date, value != expense.date.description { #expect(superseded { $0.date != nil }, comment) }
            }
        }
        await daemon.stop()
    }

    /// Runs the random mix on the calling thread; returns how many final rounds it took to settle.
    static func simulate(clients: [TestClient], engines: [SyncEngine], seed: UInt64, operations: Int) throws -> Int {
        var random = SeededGenerator(seed: seed)
        let categories = ["food", "rent", "taxi", "books", "fun"]
        for _ in 0..<operations {
            let index = Int(random.next() % UInt64(clients.count))
            let client = clients[index]
            let live = try client.ledger.list()
            let roll = random.next() % 100
            switch roll {
            case _ where roll < 30 || (live.isEmpty && roll < 75):
                try client.add(Int64(random.next() % 100_000) + 1, categories[Int(random.next() % 5)],
                               note: "n\(random.next() % 10)", date: "2026-0\(random.next() % 9 + 1)-1\(random.next() % 9)")
            case 30..<60:
                let expense = live[Int(random.next() % UInt64(live.count))]
                var changes = ExpenseDraft()
                switch random.next() % 3 {
                case 0: changes.amount = Int64(random.next() % 100_000) + 1
                case 1: changes.note = "n\(random.next() % 10)"
                default: changes.category = categories[Int(random.next() % 5)]
                }
                try client.edit(expense.id, changes)
            case 60..<70:
                try client.delete(live[Int(random.next() % UInt64(live.count))].id)
            case 70..<95:
                _ = try engines[index].sync()
            default:
                for conflict in try client.ledger.store.conflicts() {
                    let choice: Resolution = switch random.next() % 3 {
                    case 0: .mine
                    case 1: .theirs
                    default: .edit(ExpenseDraft(note: "merged by hand"))
                    }
                    try client.ledger.resolve(conflict, choice)
                }
            }
        }
        // The final round: everyone resolves what is open (keeping their own change, then taking theirs) and syncs
        // until nothing is pending anywhere; then everyone pulls once more.
        for round in 1...10 {
            var settled = true
            for (client, engine) in zip(clients, engines) {
                for conflict in try client.ledger.store.conflicts() {
                    try client.ledger.resolve(conflict, round == 1 ? .mine : .theirs)
                }
                let report = try engine.sync()
                if report.pending > 0 || report.openConflicts > 0 || report.pushed > 0 { settled = false }
            }
            if settled {
                for engine in engines { _ = try engine.sync() }
                return round
            }
        }
        return 11
    }
}

