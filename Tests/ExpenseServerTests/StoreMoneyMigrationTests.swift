import TestSupport
import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite
import Testing
@testable import ExpenseServer

/// A ledger file written before money was one field (schema version 1, with per-field versions of `amount` and
/// `currency`) is brought forward at open: money's version is the later of the two (SQLiteLedgerStore+Schema).
@Suite struct StoreMoneyMigrationTests {
    private static let ids = (UUID(), UUID())

    /// Writes, with nothing but the first migration, a file as the older daemon left it: one record whose
    /// currency changed at version 2 and one whose amount changed at version 3 (its category at 2).
    private func writeOldFile(_ path: String) throws {
        let connection = try SQLiteConnection(path: path, mode: .create)
        try connection.migrate(Array(SQLiteLedgerStore.migrations.prefix(1)))
        try connection.execute("""
            INSERT INTO meta (key, value) VALUES ('name', 'old'), ('currency', 'EUR');
            INSERT INTO daily_totals VALUES (20260101, 'food', 'JPY', 500, 1), (20260102, 'rent', 'EUR', 900, 1);
            INSERT INTO monthly_totals VALUES (202601, 'food', 'JPY', 500, 1), (202601, 'rent', 'EUR', 900, 1);
            """)
        let insert = try connection.prepare("""
            INSERT INTO records (seq, id, version, deleted, amount, currency, category, day, note,
                amount_version, currency_version, category_version, date_version, note_version)
            VALUES (?1, ?2, ?3, 0, ?4, ?5, ?6, ?7, '', ?8, ?9, ?10, 1, 1)
            """)
        try insert.run([.integer(1), SQLiteLedgerStore.blob(Self.ids.0), .integer(2), .integer(500), .text("JPY"),
                        .text("food"), .integer(20260101), .integer(1), .integer(2), .integer(1)])
        try insert.run([.integer(2), SQLiteLedgerStore.blob(Self.ids.1), .integer(3), .integer(900), .text("EUR"),
                        .text("rent"), .integer(20260102), .integer(3), .integer(1), .integer(2)])
    }

    @Test func perFieldMoneyVersionsBecomeOne() throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let path = directory + "/old.sqlite"
        try writeOldFile(path)

        let store = try SQLiteLedgerStore(path: path, name: "ignored", currency: .usd, verify: true)
        #expect(store.name == "old" && store.head == 2)
        let (currencyChanged, amountChanged) = Self.ids
        #expect(try store.record(id: currencyChanged)?.fieldVersions[.amount] == 2)
        #expect(try store.record(id: amountChanged)?.fieldVersions[.currency] == 3)
        #expect(try store.record(id: amountChanged)?.fieldVersions[.category] == 2)
        // Migration 17's texts: through the last group above 1.
        #expect(try store.connection.prepare("SELECT field_versions FROM records ORDER BY seq").map { $0.text(0) } == ["2", "3,2"])

        let engine = LedgerEngine(store: store, currency: .usd)
        var client = EngineClient(engine)
        // Money changed at 2 (only its currency did, in the old file): an amount edit based on 1 conflicts.
        #expect(try client.put(currencyChanged, base: 1, fields(amount: 750)).isConflict)
        // Money changed at 3 (its amount): a currency edit based on 2 conflicts; the category merges.
        #expect(try client.put(amountChanged, base: 2, fields(currency: "JPY")).isConflict)
        #expect(try client.put(amountChanged, base: 2, fields(note: "merged")) == .applied(version: 4, seq: 3))
        #expect(try client.put(currencyChanged, base: 2, fields(amount: 750)) == .applied(version: 3, seq: 4))

        let expenses = try allRecords(engine).map(\.expense)
        #expect(expenses.map(\.amount) == [900, 750] && expenses.map(\.currency.code) == ["EUR", "JPY"])
        let query = SummaryQuery(groupBy: .category)
        #expect(try engine.summary(query).summary == Aggregator.summarize(expenses, query: query))
        // Reopening runs nothing again.
        let reopened = try SQLiteLedgerStore(path: path, name: "ignored", currency: .usd, verify: true)
        #expect(try reopened.record(id: currencyChanged)?.fieldVersions[.currency] == 3)
        #expect(try reopened.connection.prepare("PRAGMA user_version").first { $0.int64(0) }
                == Int64(SQLiteLedgerStore.migrations.count))
        // One version for money, in the one text of the versions (migration 17); the old tables' pages were given
        // back (vacuumed).
        let columns = try reopened.connection.prepare("PRAGMA table_info(records)").map { $0.text(1) }
        #expect(columns.contains("field_versions") && !columns.contains { $0.hasSuffix("_version") })
        #expect(try reopened.connection.prepare("SELECT field_versions FROM records ORDER BY seq").map { $0.text(0) }
                == ["3,2,1,4", "3"])
        #expect(try reopened.connection.prepare("PRAGMA freelist_count").first { $0.int64(0) } == 0)
    }
}
