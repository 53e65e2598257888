import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite

/// One budget, recurring rule or setting as the cache shows it: the server's copy with the local changes on top.
package struct LocalDataRecord: Hashable, Sendable {
    package var kind: RecordKind
    package var id: UUID
    package var fields: LedgerDataFields
    package var deleted: Bool
    /// The version of the server's copy this view is based on; 0 when the daemon has never had it.
    package var baseVersion: Int64
    /// Whether a local change of it is waiting to be sent.
    package var pending: Bool
}

/// Reads of the cache's budgets, recurring rules and settings (migrations 8 and 12 of the SQLite cache), kept
/// apart from the expense tables so that nothing of them reaches an expense listing or total.
///
/// Changes are made through ``LocalLedger/put(_:id:fields:)`` and ``LocalLedger/deleteRecord(id:)``: validated
/// by ``ExpenseCore/LedgerDataValidator`` (the daemon runs it again) and queued in the one outbox, as expenses are.
package final class LedgerDataCache {
    /// Migration 8 of the SQLite cache. `data_record` is the local view: `fields` (canonical JSON) and `deleted`
    /// as shown, `base_version` the server version it is based on. `data_pending` was the second queue that
    /// migration 12 moved into `outbox` and dropped.
    static let migration = """
        CREATE TABLE data_record (
            id TEXT PRIMARY KEY,                     -- lower-case UUID
            kind TEXT NOT NULL,
            fields TEXT NOT NULL,
            deleted INTEGER NOT NULL DEFAULT 0,
            base_version INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        CREATE TABLE data_pending (
            position INTEGER PRIMARY KEY,
            id TEXT NOT NULL,
            kind TEXT NOT NULL,
            type TEXT NOT NULL CHECK (type IN ('put', 'delete')),
            base_version INTEGER NOT NULL,
            fields TEXT,
            mutation_id INTEGER                      -- numbered when first sent (LedgerDataSync); NULL: unsent
        );
        CREATE TABLE data_conflict (
            id TEXT PRIMARY KEY,                     -- the record whose change the daemon refused as a conflict
            kind TEXT NOT NULL,
            mine TEXT,                               -- the fields this machine sent (NULL: a delete)
            theirs TEXT NOT NULL                     -- the record as the daemon had it, as JSON
        ) WITHOUT ROWID;
        """

    let connection: SQLiteConnection

    /// The data cache of `store`.
    /// - Throws: ``LedgerDataCacheError/unsupportedStore`` for a cache that is not SQLite (the JSON-file cache).
    package init(store: any ExpenseStore) throws {
        guard let sqlite = store as? SQLiteExpenseStore else { throw LedgerDataCacheError.unsupportedStore(store.location) }
        connection = sqlite.connection
    }

    /// The live records of `kind`, in id order.
    package func records(_ kind: RecordKind) throws -> [LocalDataRecord] {
        try connection.cached("""
            SELECT id, kind, fields, deleted, base_version, EXISTS (SELECT 1 FROM outbox p WHERE p.expense_id = r.id)
            FROM data_record r WHERE kind = ?1 AND deleted = 0 ORDER BY id
            """).map([.text(kind.rawValue)], Self.decode)
    }

    /// The record with this id, tombstones included.
    package func record(id: UUID) throws -> LocalDataRecord? {
        try connection.cached("""
            SELECT id, kind, fields, deleted, base_version, EXISTS (SELECT 1 FROM outbox p WHERE p.expense_id = r.id)
            FROM data_record r WHERE id = ?1
            """).first([.id(id)], Self.decode)
    }

    static func decode(_ row: SQLiteRow) throws -> LocalDataRecord {
        guard let id = row.id(0), let kind = RecordKind(rawValue: row.text(1)) else {
            throw LedgerDataCacheError.damaged("an unreadable record \(row.idDescription(0))")
        }
        return LocalDataRecord(kind: kind, id: id, fields: try fields(row.text(2)), deleted: row.int64(3) != 0,
                               baseVersion: row.int64(4), pending: row.int64(5) != 0)
    }

    static func text(_ fields: LedgerDataFields) -> String {
        var writer = JSONWriter()
        LedgerDataJSON.write(.object(fields), to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func fields(_ text: String) throws -> LedgerDataFields {
        guard case .object(let members)? = try? JSONParser.parse(Array(text.utf8)),
              case .success(let fields) = LedgerDataJSON.fields(members) else {
            throw LedgerDataCacheError.damaged("unreadable fields")
        }
        return fields
    }
}

/// Why the data cache could not be used.
package enum LedgerDataCacheError: Error, Equatable, CustomStringConvertible {
    /// Budgets, rules and settings are kept only in the SQLite cache.
    case unsupportedStore(String)
    /// A row could not be read back.
    case damaged(String)

    /// The stable snake_case code.
    package var code: String {
        switch self {
        case .unsupportedStore: "unsupported_cache"
        case .damaged: "unreadable_cache"
        }
    }

    package var description: String {
        switch self {
        case .unsupportedStore(let path):
            "budgets, recurring rules, the ledger's time zone, members, transfers and balances need the SQLite cache "
                + "(cache.sqlite), not \(path); "
                + "unset EXPENSE_STORE=json to use it"
        case .damaged(let detail): "the cache's budgets and rules are damaged: \(detail)"
        }
    }
}
