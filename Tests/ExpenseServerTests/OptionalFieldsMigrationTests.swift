import ExpenseCore
import ExpenseProtocol
import Foundation
import PostgreSQL
import SQLite
import Testing
import TestSupport
@testable import ExpenseServer

/// The optional fields move into one column, `extras` (the SQLite store's migration 16, the PostgreSQL store's 12),
/// and then the field versions into one, `field_versions` (17 and 13): a ledger written in either older layout reads
/// back every record exactly, with its field versions; balances find its shared expenses (and nothing whose text
/// merely mentions a field's name); its totals by category still divide the expenses with parts.
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
            // Every group at 1 (the first), the last group alone above 1, one in the middle, several, the first.
            var versions = FieldVersions(all: 1)
            versions[.tags] = Int64(index % 3 == 2 ? 3 : 1)
            versions[.source] = Int64(index % 4 == 1 ? 2 : 1)
            versions[.amount] = Int64(index % 5 == 4 ? 3 : 1)
            versions[.note] = Int64(index == 7 ? 2 : 1)
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

    /// The migrations a file of `layout` had run.
    private static func sqliteMigrations(_ layout: LegacyRecordColumns.Layout) -> Int {
        switch layout {
        case .separateFields: SQLiteLedgerStore.optionalFieldsMigration
        case .separateVersions: SQLiteLedgerStore.fieldVersionsMigration
        }
    }

    @Test(arguments: [LegacyRecordColumns.Layout.separateFields, .separateVersions])
    func anSQLiteLedgerOfSeparateColumnsReadsBackExactly(layout: LegacyRecordColumns.Layout) throws {
        let directory = try TemporaryDirectory("optional-fields")
        defer { directory.remove() }
        let path = directory.file("old.sqlite"), records = try Self.records()
        do {
            let connection = try SQLiteConnection(path: path, mode: .create)
            try connection.migrate(Array(SQLiteLedgerStore.migrations.prefix(Self.sqliteMigrations(layout))))
            try connection.execute("INSERT INTO meta (key, value) VALUES ('name', 'old'), ('currency', 'USD')")
            try LegacyRecordColumns.insert(records, layout, into: connection)
        }
        let store = try SQLiteLedgerStore(path: path, name: "ignored", currency: .usd, verify: true)
        #expect(try store.connection.userVersion == SQLiteLedgerStore.migrations.count)
        try Self.expectSame(store, as: records)
        let columns = try store.connection.prepare("PRAGMA table_info(records)").map { $0.text(1) }
        #expect(Set(columns) == Set(RecordColumns.names + RecordCreation.columns))
        #expect(try store.connection.prepare("PRAGMA freelist_count").first { $0.int64(0) } == 0)
        // Each row holds its versions' text, the empty text for those all at 1.
        let texts = try store.connection.prepare("SELECT field_versions FROM records ORDER BY seq").map { $0.text(0) }
        #expect(texts == records.map(\.fieldVersions.columnText))
        #expect(texts.first == "")
        // Reopened, from the live totals built at open.
        try Self.expectSame(try SQLiteLedgerStore(path: path, name: "ignored", currency: .usd), as: records)
    }

    @Test(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)),
          arguments: [LegacyRecordColumns.Layout.separateFields, .separateVersions])
    func aPostgresLedgerOfSeparateColumnsReadsBackExactly(layout: LegacyRecordColumns.Layout) throws {
        let schema = try PostgresTestSchema(migrations: layout == .separateFields ? 12 : 13), records = try Self.records()
        let connection = try schema.connect()
        try PostgresLedgerStore.install(
            LedgerSnapshot(name: "old", currency: .usd, identity: LedgerIdentity(ledgerId: UUID(), epoch: UUID(), epochCursor: 0),
                           head: Int64(records.count), horizon: 0, historyStartSeq: 0, historyStartTime: 0, records: [],
                           dataRecords: [], history: [], clients: [:], outcomes: [], tokens: [], totals: [:]),
            connection: connection)
        let ledger = try #require(try connection.query("SELECT number FROM ledgers WHERE name = 'old'").first?.int64(0))
        try LegacyRecordColumns.insert(records, layout, ledger: ledger, into: connection)
        try PostgresLedgerStore.prepareSchema(connection)
        #expect(try connection.query("SELECT max(version) FROM schema_version").first?.int64(0)
                == Int64(PostgresLedgerStore.migrations.count))
        try Self.expectSame(try PostgresLedgerStore(connection: try schema.connect(), name: "old"), as: records, totals: false)
        let texts = try connection.query("SELECT field_versions FROM records WHERE ledger = $1 ORDER BY seq", [.integer(ledger)])
            .all.map { $0.text(0) }
        #expect(texts == records.map(\.fieldVersions.columnText))
    }
}
