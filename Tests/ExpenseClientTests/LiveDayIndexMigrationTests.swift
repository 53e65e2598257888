import TestSupport
import ExpenseCore
import Foundation
import SQLite
import Testing
@testable import ExpenseClient

/// Migration 11: the live day index is keyed (day) instead of (day, position). Every index entry ends with the
/// row's rowid, `position`, so listings keep their order (a day's expenses by position) and still walk the index
/// without a sort, whether the index came from the migration or from a first sync's bulk load.
@Suite struct LiveDayIndexMigrationTests {
    /// The queries of `expense list` and `expense summary` (``SQLiteExpenseStore/forEachExpense(matching:_:)``,
    /// ``SQLiteExpenseStore/buckets(matching:)``) and of the live totals, as `EXPLAIN QUERY PLAN` shows them.
    static func plans(_ connection: SQLiteConnection) throws -> [[String]] {
        let filter = "WHERE deleted = 0 AND day >= ?1 AND day <= ?2 AND (?3 IS NULL OR category = ?3)"
        return try [
            "SELECT \(SQLiteCacheTables.recordColumns) FROM expense \(filter) ORDER BY day, position",
            "SELECT day, category, currency, sum(amount), count(*) FROM expense \(filter) GROUP BY day, category, currency",
        ].map { sql in try connection.prepare("EXPLAIN QUERY PLAN " + sql).map { $0.text(3) } }
    }

    static let expectedPlans = [
        ["SEARCH expense USING INDEX expense_live_by_day (day>? AND day<?)"],
        ["SEARCH expense USING INDEX expense_live_by_day (day>? AND day<?)", "USE TEMP B-TREE FOR GROUP BY"],
    ]

    static func indexDefinition(_ connection: SQLiteConnection) throws -> String? {
        try connection.prepare("SELECT sql FROM sqlite_schema WHERE name = 'expense_live_by_day'").first { $0.text(0) }
    }

    @Test func aCacheOfMigration10GetsTheDayIndexAndListsInTheSameOrder() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/cache.sqlite"
        // Rows appended out of day order, several on each day, one deleted: a day's rows list by position.
        var expected: [(day: Int, position: Int64)] = []
        do {
            let connection = try SQLiteConnection(path: path, mode: .create)
            try SQLiteExpenseStore.defineFunctions(on: connection)
            try connection.migrate(Array(SQLiteExpenseStore.migrations.prefix(10)))
            // What the open of that version finished migration 10 with (its bulk-load indexes and triggers).
            try connection.execute("""
                CREATE UNIQUE INDEX expense_by_id ON expense(id);
                CREATE INDEX expense_live_by_day ON expense(day, position) WHERE deleted = 0;
                DELETE FROM meta WHERE key = '\(StoreMetaKey.bulkLoad.rawValue)';
                """)
            for trigger in SQLiteExpenseStore.bulkTriggers { try connection.execute(trigger.definition) }
            let insert = try connection.prepare("""
                INSERT INTO expense(position, id, amount, currency, category, day, note, base_version, deleted, seq)
                VALUES (?1, ?2, ?3, 'USD', 'c', ?4, '', 1, ?5, ?1)
                """)
            try connection.transaction {
                for position in Int64(1)...60 {
                    let day = 20260101 + Int((position * 7) % 5)
                    let deleted = position == 17
                    try insert.run([.integer(position), .id(UUID()), .integer(position), .integer(Int64(day)),
                                    .integer(deleted ? 1 : 0)])
                    if !deleted { expected.append((day, position)) }
                }
            }
        }
        let store = try SQLiteExpenseStore(path: path)
        #expect(try store.connection.userVersion == SQLiteExpenseStore.migrations.count)
        #expect(try Self.indexDefinition(store.connection) == "CREATE INDEX expense_live_by_day ON expense(day) WHERE deleted = 0")
        #expect(try Self.plans(store.connection) == Self.expectedPlans)
        let listed = try store.expenses(matching: ExpenseFilter()).map(\.amount)
        #expect(listed == expected.sorted { ($0.day, $0.position) < ($1.day, $1.position) }.map(\.position))
        let firstDay = try #require(CalendarDay("2026-01-02"))
        #expect(try store.expenses(matching: ExpenseFilter(from: firstDay, to: firstDay)).map(\.amount)
                == expected.filter { $0.day == 20260102 }.map(\.position))
    }

    @Test func aBulkLoadBuildsTheSameIndex() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteExpenseStore(path: directory.path + "/cache.sqlite")
        #expect(try store.beginBulkLoad())
        #expect(try Self.indexDefinition(store.connection) == nil)
        try store.endBulkLoad()
        #expect(try Self.indexDefinition(store.connection) == "CREATE INDEX expense_live_by_day ON expense(day) WHERE deleted = 0")
        #expect(try Self.plans(store.connection) == Self.expectedPlans)
    }
}
