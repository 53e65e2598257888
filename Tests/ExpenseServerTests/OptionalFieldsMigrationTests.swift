import ExpenseCore
import ExpenseProtocol
import Foundation
import PostgreSQL
import SQLite
import Testing
import TestSupport
@testable import ExpenseServer

/// The optional fields move into one column, `extras` (the SQLite store's migration 16, the PostgreSQL store's 12): a
/// ledger written before, each field in a column of its own, reads back every record exactly, with its field
/// versions; balances find its shared expenses (and nothing whose text merely mentions a field's name); its totals
/// by category still divide the expenses with parts.
@Suite(.offTheCooperativePool) struct OptionalFieldsMigrationTests {
    /// Records using each field alone, all of them, none; a deleted one; texts that name other fields.
    static func records() throws -> [StoredRecord] {
        let payer = UUID(), other = UUID()
        let members = [payer, other].map { $0.uuidString.lowercased() }.sorted().joined(separator: ",")
        let drafts: [ExpenseDraft] = [
            ExpenseDraft(amount: 1250, currency: "USD", category: "food", date: "2026-11-30", note: "none"),
            ExpenseDraft(amount: 900, currency: "USD", category: "rent", date: "2026-11-30", note: "", paidBy: payer.uuidString.lowercased()),
            ExpenseDraft(amount: 3000, currency: "EUR", category: "trip", date: "2026-12-01", note: "shared",
                         paidBy: payer.uuidString.lowercased(), split: "equal:" + members),
            ExpenseDraft(amount: 4000, currency: "EUR", category: "trip", date: "2026-12-01", note: "", charged: 4410),
            ExpenseDraft(amount: 500, currency: "USD", category: "food", date: "2026-12-02", note: "", tags: ["b", "a"]),
            ExpenseDraft(amount: 2000, currency: "USD", category: "shop", date: "2026-12-02", note: "", parts: "250:drinks,300:food"),
            ExpenseDraft(amount: 700, currency: "USD", category: "food", date: "2026-12-03", note: "",
                         source: "CARD paidBy=x split=y parts=1:z\twith tab"),
            ExpenseDraft(amount: 6000, currency: "JPY", category: "trip", date: "2026-12-03", note: "every field",
                         paidBy: other.uuidString.lowercased(), split: "equal:" + members, charged: 40,
                         tags: ["caf\u{E9}"], parts: "1000:food", source: "row 7"),
            ExpenseDraft(amount: 800, currency: "USD", category: "food", date: "2026-12-04", note: "deleted",
                         paidBy: payer.uuidString.lowercased(), split: "equal:" + members, tags: ["gone"]),
        ]
        return try drafts.enumerated().map { index, draft in
            var draft = draft
            draft.id = .text(UUID().uuidString)
            var versions = FieldVersions(all: 1)
            versions[.tags] = Int64(index % 3 + 1)
            versions[.source] = Int64(index % 2 + 1)
            return StoredRecord(record: Record(expense: try ExpenseValidator.validate(draft), version: 3, seq: Int64(index + 1),
                                               deleted: index == drafts.count - 1),
                                fieldVersions: versions)
        }
    }

    /// What the migrated store answers, against the records as written.
    /// (`totals`: whether the store's totals were built from the records; the PostgreSQL ledger's were installed
    /// apart from them here, and no migration touches them.)
    private static func expectSame(_ store: some LedgerStore, as records: [StoredRecord], totals: Bool = true) throws {
        for stored in records {
            let read = try #require(try store.record(id: stored.expense.id))
            #expect(read.record == stored.record && read.fieldVersions == stored.fieldVersions, "\(stored.expense.note)")
        }
        let engine = LedgerEngine(store: store, currency: .usd)
        #expect(try allRecords(engine) == records.map(\.record))
        let live = records.filter { !$0.deleted }.map(\.expense)
        let shared = try store.records(.balances).expenses
        #expect(Set(shared.map(\.id)) == Set(live.filter { $0.paidBy != nil && $0.split != nil }.map(\.id)))
        guard totals else { return }
        let query = SummaryQuery(groupBy: .category)
        #expect(try engine.summary(query).summary == Aggregator.summarize(live, query: query))
    }

    @Test func anSQLiteLedgerOfSeparateColumnsReadsBackExactly() throws {
        let directory = try TemporaryDirectory("optional-fields")
        defer { directory.remove() }
        let path = directory.file("old.sqlite"), records = try Self.records()
        do {
            let connection = try SQLiteConnection(path: path, mode: .create)
            try connection.migrate(Array(SQLiteLedgerStore.migrations.prefix(SQLiteLedgerStore.optionalFieldsMigration)))
            try connection.execute("INSERT INTO meta (key, value) VALUES ('name', 'old'), ('currency', 'USD')")
            try LegacyRecordColumns.insert(records, into: connection)
        }
        let store = try SQLiteLedgerStore(path: path, name: "ignored", currency: .usd, verify: true)
        #expect(try store.connection.userVersion == SQLiteLedgerStore.migrations.count)
        try Self.expectSame(store, as: records)
        let columns = try store.connection.prepare("PRAGMA table_info(records)").map { $0.text(1) }
        #expect(columns.contains("extras") && !columns.contains { ["paid_by", "split", "charged", "tags", "parts", "source"].contains($0) })
        #expect(try store.connection.prepare("PRAGMA freelist_count").first { $0.int64(0) } == 0)
        // Reopened, from the live totals built at open.
        try Self.expectSame(try SQLiteLedgerStore(path: path, name: "ignored", currency: .usd), as: records)
    }

    @Test(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
    func aPostgresLedgerOfSeparateColumnsReadsBackExactly() throws {
        let schema = try PostgresTestSchema(migrations: 12), records = try Self.records()
        let connection = try schema.connect()
        try PostgresLedgerStore.install(
            LedgerSnapshot(name: "old", currency: .usd, identity: LedgerIdentity(ledgerId: UUID(), epoch: UUID(), epochCursor: 0),
                           head: Int64(records.count), horizon: 0, historyStartSeq: 0, historyStartTime: 0, records: [],
                           dataRecords: [], history: [], clients: [:], outcomes: [], tokens: [], totals: [:]),
            connection: connection)
        let ledger = try #require(try connection.query("SELECT number FROM ledgers WHERE name = 'old'").first?.int64(0))
        try LegacyRecordColumns.insert(records, ledger: ledger, into: connection)
        try PostgresLedgerStore.prepareSchema(connection)
        #expect(try connection.query("SELECT max(version) FROM schema_version").first?.int64(0)
                == Int64(PostgresLedgerStore.migrations.count))
        try Self.expectSame(try PostgresLedgerStore(connection: try schema.connect(), name: "old"), as: records, totals: false)
    }
}
