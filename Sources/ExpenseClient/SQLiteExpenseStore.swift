import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite

/// The default store: one SQLite file (`$EXPENSE_HOME/cache.sqlite`) in WAL mode with `synchronous=FULL`,
/// so a committed change (and its pending mutation) survives a crash or a power cut.
///
/// Built for 100,000 expenses and more: an add is one indexed insert, listings filter in SQL on indexes,
/// and nothing loads the whole table except a listing or summary that asks for all of it.
package final class SQLiteExpenseStore: ExpenseStore {
    private let connection: SQLiteConnection
    package let location: String

    /// Opens (or creates, mode 0600) the cache at `path` and brings its schema up to date.
    /// - Throws: ``StoreError/unreadable(path:reason:)`` when the file is damaged, not a database, or cannot be opened.
    package init(path: String) throws {
        location = path
        do {
            if path != ":memory:" { try FileSystem.createPrivateFileIfMissing(path) }
            connection = try SQLiteConnection(path: path, mode: .readWrite)
            try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
            try connection.migrate(Self.migrations)
            if try metaValue(.clientId) == nil {
                try connection.transaction {
                    let insert = try connection.cached("INSERT OR IGNORE INTO meta(key, value) VALUES (?1, ?2)")
                    try insert.run([.text(StoreMetaKey.clientId.rawValue), .text(UUID().uuidString.lowercased())])
                    try insert.run([.text(StoreMetaKey.nextMutationId.rawValue), "1"])
                }
            }
        } catch let error as SQLiteError {
            throw StoreError.unreadable(path: path, reason: Self.reason(error))
        } catch let error as StoreError {
            if case .writeFailed(_, let reason) = error { throw StoreError.unreadable(path: path, reason: reason) }
            throw error
        }
    }

    package func record(id: UUID) throws -> LocalRecord? {
        try reading {
            try connection.cached("SELECT \(Self.columns) FROM expense WHERE id = ?1")
                .first([.text(id.uuidString.lowercased())]) { try decode($0) }
        }
    }

    package func records(idPrefix: String, limit: Int) throws -> [LocalRecord] {
        // A range on the unique index (`~` sorts after every character of a UUID) rather than LIKE, which
        // would scan the table because LIKE is case-insensitive.
        try reading {
            try connection.cached("""
                SELECT \(Self.columns) FROM expense WHERE id >= ?1 AND id < ?1 || '~' AND deleted = 0
                ORDER BY position LIMIT ?2
                """).map([.text(idPrefix.lowercased()), SQLiteValue(limit)]) { try decode($0) }
        }
    }

    package func expenses(matching filter: ExpenseFilter) throws -> [Expense] {
        try reading {
            try connection.cached("""
                SELECT \(Self.columns) FROM expense
                WHERE deleted = 0 AND day >= ?1 AND day <= ?2 AND (?3 IS NULL OR category = ?3)
                ORDER BY day, position
                """).map([SQLiteValue(filter.from?.ordinal ?? 0), SQLiteValue(filter.to?.ordinal ?? 99_999_999),
                          SQLiteValue(filter.category)]) { try decode($0).expense }
        }
    }

    package func liveCount() throws -> Int {
        try reading { try connection.cached("SELECT count(*) FROM expense WHERE deleted = 0").first { $0.int(0) } ?? 0 }
    }

    @discardableResult
    package func commit(_ changes: [StagedChange], meta: [StoreMetaKey: String?]) throws -> [PendingMutation] {
        try writing {
            try connection.transaction {
                var nextId = try metaValue(.nextMutationId).flatMap { Int64($0) } ?? 1
                var appended: [PendingMutation] = []
                let upsert = try connection.cached("""
                    INSERT INTO expense(id, amount, currency, category, day, note, base_version, deleted)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                    ON CONFLICT(id) DO UPDATE SET amount = excluded.amount, currency = excluded.currency,
                        category = excluded.category, day = excluded.day, note = excluded.note,
                        base_version = excluded.base_version, deleted = excluded.deleted
                    """)
                let enqueue = try connection.cached("""
                    INSERT INTO pending_mutation(mutation_id, type, expense_id, base_version, amount, currency, category, date, note)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                    """)
                for change in changes {
                    let record = change.record
                    let expense = record.expense
                    try upsert.run([.text(expense.idString), .integer(expense.amount), .text(expense.currency.code),
                                    .text(expense.category), SQLiteValue(expense.date.ordinal), .text(expense.note),
                                    .integer(record.baseVersion), SQLiteValue(record.deleted)])
                    guard let mutation = change.mutation else { continue }
                    let fields = mutation.fields
                    try enqueue.run([.integer(nextId), .text(mutation.type.rawValue), .text(expense.idString),
                                     .integer(mutation.baseVersion), SQLiteValue(fields.amount), SQLiteValue(fields.currency),
                                     SQLiteValue(fields.category), SQLiteValue(fields.date), SQLiteValue(fields.note)])
                    appended.append(PendingMutation(mutationId: nextId, type: mutation.type, id: expense.id,
                                                    baseVersion: mutation.baseVersion, fields: fields))
                    nextId += 1
                }
                var updates = meta
                if !appended.isEmpty { updates[.nextMutationId] = String(nextId) }
                for (key, value) in updates {
                    if let value {
                        try connection.cached("INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
                            .run([.text(key.rawValue), .text(value)])
                    } else {
                        try connection.cached("DELETE FROM meta WHERE key = ?1").run([.text(key.rawValue)])
                    }
                }
                return appended
            }
        }
    }

    package func pendingMutations(limit: Int) throws -> [PendingMutation] {
        try reading {
            try connection.cached("""
                SELECT mutation_id, type, expense_id, base_version, amount, currency, category, date, note
                FROM pending_mutation ORDER BY mutation_id LIMIT ?1
                """).map([SQLiteValue(limit)]) { row in
                guard let type = MutationType(rawValue: row.text(1)), let id = UUID(uuidString: row.text(2)) else {
                    throw StoreError.unreadable(path: location, reason: "pending mutation \(row.int64(0)) is damaged")
                }
                return PendingMutation(
                    mutationId: row.int64(0), type: type, id: id, baseVersion: row.int64(3),
                    fields: ExpenseDraft(amount: row.isNull(4) ? nil : row.int64(4), currency: row.optionalText(5),
                                         category: row.optionalText(6), date: row.optionalText(7), note: row.optionalText(8)))
            }
        }
    }

    package func pendingCount() throws -> Int {
        try reading { try connection.cached("SELECT count(*) FROM pending_mutation").first { $0.int(0) } ?? 0 }
    }

    package func removePendingMutations(through mutationId: Int64) throws {
        try writing { try connection.cached("DELETE FROM pending_mutation WHERE mutation_id <= ?1").run([.integer(mutationId)]) }
    }

    package func metaValue(_ key: StoreMetaKey) throws -> String? {
        try reading { try connection.cached("SELECT value FROM meta WHERE key = ?1").first([.text(key.rawValue)]) { $0.text(0) } }
    }

    // MARK: - Rows and errors

    private static let columns = "id, amount, currency, category, day, note, base_version, deleted"

    /// Rebuilds a record from a row this program wrote after validating it. A value that no longer parses
    /// means the file was damaged or edited by hand: that is reported, never skipped.
    private func decode(_ row: SQLiteRow) throws -> LocalRecord {
        guard let id = UUID(uuidString: row.text(0)), let currency = Currency(code: row.text(2)),
              let day = CalendarDay(ordinal: row.int(4)), (1...ExpenseRules.maximumAmount).contains(row.int64(1))
        else { throw StoreError.unreadable(path: location, reason: "the row of expense '\(row.text(0))' is damaged") }
        let expense = Expense(id: id, amount: row.int64(1), currency: currency, category: row.text(3), date: day, note: row.text(5))
        return LocalRecord(expense: expense, baseVersion: row.int64(6), deleted: row.int64(7) != 0)
    }

    private func reading<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as SQLiteError {
            throw StoreError.unreadable(path: location, reason: Self.reason(error))
        }
    }

    private func writing<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as SQLiteError {
            throw error.isCorruption
                ? StoreError.unreadable(path: location, reason: Self.reason(error))
                : StoreError.writeFailed(path: location, reason: Self.reason(error))
        }
    }

    private static func reason(_ error: SQLiteError) -> String {
        error.isCorruption ? "the file is damaged or is not an expense cache (\(error.message))" : error.message
    }
}
