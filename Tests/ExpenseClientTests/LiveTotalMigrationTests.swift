import TestSupport
import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite
import Testing
@testable import ExpenseClient

/// A cache written by the previous schema (migration 6, no `live_total`) gets its totals built from its rows when
/// opened (migration 7), and the triggers keep them from then on.
@Suite struct LiveTotalMigrationTests {
    @Test func aCacheOfThePreviousSchemaGetsItsTotalsFromItsRows() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/cache.sqlite"
        let ids = (0..<1030).map { _ in UUID() }
        do {
            let connection = try SQLiteConnection(path: path, mode: .create)
            try connection.migrate(Array(SQLiteExpenseStore.migrations.prefix(6)))
            let insert = try connection.prepare("""
                INSERT INTO expense(id, amount, currency, category, day, note, base_version, deleted, seq)
                VALUES (?1, ?2, ?3, 'c', 20260101, '', 1, ?4, ?5)
                """)
            // 1,025 maximal USD amounts (past Int64 together), 3 EUR (one deleted), 2 deleted USD.
            try connection.transaction {
                for (index, id) in ids.enumerated() {
                    let currency = index < 1027 ? "USD" : "EUR"
                    let deleted = index == 1025 || index == 1026 || index == 1029
                    let amount = currency == "USD" ? ExpenseRules.maximumAmount : Int64(index)
                    try insert.run([.text(UUIDText.lowercased(id)), .integer(amount), .text(currency), .integer(deleted ? 1 : 0),
                                    .integer(Int64(index + 1))])
                }
            }
            #expect(try connection.userVersion == 6)
        }
        let store = try SQLiteExpenseStore(path: path)
        #expect(try store.connection.userVersion == SQLiteExpenseStore.migrations.count)
        #expect(try store.liveCount() == 1025 + 2)
        #expect(try store.liveTotal(currency: .usd) == nil)
        #expect(try store.liveTotal(currency: try #require(Currency(code: "EUR"))) == 1027 + 1028)
        #expect(try store.liveTotal(currency: try #require(Currency(code: "JPY"))) == 0)

        // One USD expense deleted: the rest fits again, exactly; the rule then allows a small add and refuses a large one.
        let ledger = LocalLedger(store: store)
        try ledger.delete(try ledger.find(ids[0].uuidString))
        #expect(try store.liveTotal(currency: .usd) == 1024 * ExpenseRules.maximumAmount)
        let room = Int64.max - 1024 * ExpenseRules.maximumAmount
        #expect(throws: LedgerLimitError.totalOverflow(currency: .usd)) {
            try ledger.add(ExpenseDraft(amount: room + 1, currency: "USD", category: "c", date: "2026-01-02"))
        }
        try ledger.add(ExpenseDraft(amount: room, currency: "USD", category: "c", date: "2026-01-02"))
        #expect(try store.liveTotal(currency: .usd) == Int64.max)
        #expect(try store.liveCount() == 1025 + 2)
    }

    /// A first sync the previous version left interrupted (indexes dropped, an id appended twice): the migration
    /// counts every row, the open finishes the bulk load, and the dropped duplicate is no longer counted.
    @Test func anInterruptedBulkLoadOfThePreviousSchemaIsCountedOnce() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/cache.sqlite"
        let twice = UUIDText.lowercased(UUID())
        do {
            let connection = try SQLiteConnection(path: path, mode: .create)
            try connection.migrate(Array(SQLiteExpenseStore.migrations.prefix(6)))
            try connection.execute("""
                DROP INDEX expense_by_id; DROP INDEX expense_live_by_day;
                INSERT INTO meta(key, value) VALUES ('\(StoreMetaKey.bulkLoad.rawValue)', '1');
                INSERT INTO expense(id, amount, currency, category, day, note, base_version, deleted, seq) VALUES
                    ('\(twice)', 100, 'USD', 'c', 20260101, '', 1, 0, 1),
                    ('\(UUIDText.lowercased(UUID()))', 5, 'EUR', 'c', 20260101, '', 1, 0, 2),
                    ('\(twice)', 300, 'EUR', 'c', 20260101, '', 2, 0, 3);
                """)
        }
        let store = try SQLiteExpenseStore(path: path)
        #expect(try store.metaValue(.bulkLoad) == nil)
        #expect(try store.liveCount() == 2)
        #expect(try store.liveTotal(currency: .usd) == 0)
        #expect(try store.liveTotal(currency: try #require(Currency(code: "EUR"))) == 305)
    }
}
