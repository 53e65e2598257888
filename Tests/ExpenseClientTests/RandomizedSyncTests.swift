import LedgerTestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import Foundation
import Testing
import TestSupport

/// Four clients, a seeded random mix of 2,000 adds, edits (amounts, currencies with or without new digits, and
/// text, some of it canonically equivalent to what it replaces: "café" in NFC and NFD), deletes, syncs and
/// conflict resolutions, then a final sync round: every client equals the daemon byte for byte, the daemon's
/// summary equals a recomputation from its records, and every acknowledged change is present or superseded by
/// a later acknowledged change (money as one value, Protocol.md §7.4).
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
            client.dependencies.onApplied = { entry, version in acknowledged.set(acknowledged.get() + [Acknowledged(entry: entry, version: version)]) }
            return client
        }
        let engines = clients.map { $0.engine(daemon) }
        let rounds = try await onOwnThread { [engines] in try Self.simulate(clients: clients, engines: engines, seed: seed, operations: 2000) }
        let comment = Comment(rawValue: "seed \(seed) (replay with EXPENSE_SYNC_SEED=\(seed))")
        #expect(rounds <= 6, comment)

        let records = try await daemon.records()
        let server = liveExpenses(records)
        for client in clients {
            #expect(Self.bytes(try client.live()) == Self.bytes(server), comment)
            #expect(try client.ledger.store.pendingCount() == 0, comment)
            #expect(try client.ledger.store.conflicts().isEmpty, comment)
            // The totals each store keeps (LiveTotal) follow every push answer, conflict and pull.
            #expect(try client.ledger.store.liveCount() == server.count, comment)
            for currency in Set(server.values.map(\.currency)) {
                let sum = server.values.filter { $0.currency == currency }.reduce(Int128(0)) { $0 + Int128($1.amount) }
                #expect(try client.ledger.store.liveTotal(currency: currency) == Int64(exactly: sum), comment)
            }
        }
        for grouping in [SummaryGrouping.none, .category, .month] {
            let query = SummaryQuery(groupBy: grouping)
            let daemonSummary = try await daemon.ledger.summary(query).summary
            #expect(daemonSummary == (try Aggregator.summarize(Array(server.values), query: query)), comment)
        }
        let acks = acknowledged.get()
        #expect(acks.count > 500, comment)
        // Never a pair nobody entered: each live record holds exactly the (amount, currency) of the newest
        // acknowledged change of its money (a creation, an edit, a restore).
        let newestMoney = Dictionary(acks.filter { $0.entry.type == .put && ($0.entry.fields.amount != nil || $0.entry.fields.currency != nil) }
            .map { ($0.entry.id, $0) }, uniquingKeysWith: { $0.version >= $1.version ? $0 : $1 })
        for (id, record) in records where !record.deleted {
            let money = try #require(newestMoney[id], comment)
            #expect(money.entry.fields.amount == record.expense.amount && money.entry.fields.currency == .value(record.expense.currency),
                    "\(record.expense.amount) \(record.expense.currency.code) is not the newest pair entered; \(comment)")
        }
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
                // Money is one value: a change carrying it is superseded only by a later change of money.
                if fields.amount != nil || fields.currency != nil {
                    #expect(fields.amount != nil && fields.currency != nil, "a queued money change carries the pair; \(comment)")
                    if fields.amount != expense.amount || fields.currency != .value(expense.currency) {
                        #expect(superseded { $0.amount != nil || $0.currency != nil }, comment)
                    }
                }
                if let value = fields.category, !ExactText.same(value, expense.category) { #expect(superseded { $0.category != nil }, comment) }
                if let value = fields.note, !ExactText.same(value, expense.note) { #expect(superseded { $0.note != nil }, comment) }
                if let value = fields.date, value != .value(expense.date) { #expect(superseded { $0.date != nil }, comment) }
            }
        }
        await daemon.stop()
    }

    /// Each expense as its exact bytes, so that no comparison can call NFC and NFD the same.
    static func bytes(_ expenses: [UUID: Expense]) -> [UUID: [[UInt8]]] {
        expenses.mapValues { expense in
            [Array(String(expense.amount).utf8), Array(expense.currency.code.utf8), Array(expense.category.utf8),
             Array(expense.date.description.utf8), Array(expense.note.utf8)]
        }
    }

    /// Runs the random mix on the calling thread; returns how many final rounds it took to settle.
    static func simulate(clients: [TestClient], engines: [SyncEngine], seed: UInt64, operations: Int) throws -> Int {
        var random = SeededGenerator(seed: seed)
        // Two canonically equivalent spellings of each word: `==` on String calls them equal, the ledger does not.
        let categories = ["food", "caf\u{E9}", "cafe\u{301}", "r\u{E9}sum\u{E9}", "re\u{301}sume\u{301}"]
        let notes = ["n1", "n2", "na\u{EF}ve", "nai\u{308}ve", "\u{C5}", "A\u{30A}", "\u{212B}"]
        let currencies = ["USD", "EUR", "JPY"]
        for _ in 0..<operations {
            let index = Int(random.next() % UInt64(clients.count))
            let client = clients[index]
            let live = try client.ledger.list()
            let roll = random.next() % 100
            switch roll {
            case _ where roll < 30 || (live.isEmpty && roll < 75):
                try client.add(Int64(random.next() % 100_000) + 1, categories[Int(random.next() % 5)],
                               note: notes[Int(random.next() % UInt64(notes.count))],
                               date: "2026-0\(random.next() % 9 + 1)-1\(random.next() % 9)")
            case 30..<60:
                let expense = live[Int(random.next() % UInt64(live.count))]
                var changes = ExpenseDraft()
                switch random.next() % 5 {
                case 0: changes.amount = Int64(random.next() % 100_000) + 1
                case 1: changes.note = notes[Int(random.next() % UInt64(notes.count))]
                case 2:
                    // As `edit --currency X --amount A` does; half the time with the same digits (only the
                    // currency differs, as in 5.00 EUR → 500 JPY).
                    changes.currency = .text(currencies[Int(random.next() % 3)])
                    changes.amount = random.next() % 2 == 0 ? expense.amount : Int64(random.next() % 100_000) + 1
                case 3: changes.category = Self.equivalent(of: expense.category, in: categories) ?? categories[Int(random.next() % 5)]
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

    /// Another spelling of `text` that Swift's `==` calls equal (canonically equivalent), if the list has one.
    static func equivalent(of text: String, in list: [String]) -> String? {
        list.first { $0 == text && !ExactText.same($0, text) }
    }
}

