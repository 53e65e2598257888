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

/// A local change of a budget, rule or setting, queued for the daemon (Protocol.md §10).
package struct DataPendingChange: Hashable, Sendable {
    package var position: Int64
    package var kind: RecordKind
    package var id: UUID
    package var type: MutationType
    package var baseVersion: Int64
    /// The fields that changed (every field for a create or a restore); `nil` for a delete.
    package var fields: LedgerDataFields?
    /// The mutationId it was sent with, under the data client id (``LedgerDataSync``); `nil` until sent.
    package var mutationId: Int64?

    /// The mutation it is sent as.
    package func mutation(_ mutationId: Int64) -> Mutation {
        Mutation(mutationId: mutationId, type: type, id: id, baseVersion: baseVersion,
                 fields: fields.map { $0.mapValues(LedgerDataJSON.json) }, kind: kind)
    }
}

/// The cache's budgets, recurring rules and settings (migration 8 of the SQLite cache), kept apart from the
/// expense tables so that nothing of them reaches an expense listing or total.
///
/// Every change is validated by ``ExpenseCore/LedgerDataValidator`` (the daemon runs it again) and written
/// with its queue entry in one transaction.
package final class LedgerDataCache {
    /// Migration 8 of the SQLite cache. `data_record` is the local view: `fields` (canonical JSON) and `deleted`
    /// as shown, `base_version` the server version it is based on. `data_pending` is the queue of local changes
    /// in order: `fields` holds the changed fields only (every field for a create), NULL for a delete.
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
            SELECT id, kind, fields, deleted, base_version, EXISTS (SELECT 1 FROM data_pending p WHERE p.id = r.id)
            FROM data_record r WHERE kind = ?1 AND deleted = 0 ORDER BY id
            """).map([.text(kind.rawValue)], Self.decode)
    }

    /// The record with this id, tombstones included.
    package func record(id: UUID) throws -> LocalDataRecord? {
        try connection.cached("""
            SELECT id, kind, fields, deleted, base_version, EXISTS (SELECT 1 FROM data_pending p WHERE p.id = r.id)
            FROM data_record r WHERE id = ?1
            """).first([.id(id)], Self.decode)
    }

    /// Sets the record `id` of `kind` to `fields` (validated first), queueing a create, a restore or an edit of
    /// the fields that changed. Nothing is queued when nothing changed.
    /// - Returns: the stored fields.
    /// - Throws: ``LedgerDataError``, ``SQLite/SQLiteError``.
    @discardableResult
    package func put(_ kind: RecordKind, id: UUID, fields: LedgerDataFields) throws -> LedgerDataFields {
        let validated = try LedgerDataValidator.validate(kind: kind, id: id, fields: fields)
        try connection.transaction {
            let existing = try record(id: id)
            let base = existing?.baseVersion ?? 0
            let sent: LedgerDataFields
            if let existing, !existing.deleted {
                sent = validated.filter { name, value in !(existing.fields[name].map { $0.same(as: value) } ?? false) }
                    .merging(Self.moneyPartners(of: validated, changed: existing.fields)) { a, _ in a }
                if sent.isEmpty && Set(existing.fields.keys) == Set(validated.keys) { return }
            } else {
                sent = validated
            }
            try connection.cached("""
                INSERT INTO data_record (id, kind, fields, deleted, base_version) VALUES (?1, ?2, ?3, 0, ?4)
                ON CONFLICT(id) DO UPDATE SET fields = excluded.fields, deleted = 0
                """).run([.id(id), .text(kind.rawValue), .text(Self.text(validated)), .integer(base)])
            try queue(kind, id: id, type: .put, base: base, fields: sent)
        }
        return validated
    }

    /// Deletes the record `id` locally and queues the delete; `false` when there is no live record with that id.
    package func delete(id: UUID) throws -> Bool {
        try connection.transaction {
            guard let existing = try record(id: id), !existing.deleted else { return false }
            try connection.cached("UPDATE data_record SET deleted = 1 WHERE id = ?1").run([.id(id)])
            try queue(existing.kind, id: id, type: .delete, base: existing.baseVersion, fields: nil)
            return true
        }
    }

    /// The queued changes, oldest first.
    package func pendingChanges() throws -> [DataPendingChange] {
        try connection.cached("SELECT position, id, kind, type, base_version, fields, mutation_id FROM data_pending ORDER BY position").map([]) { row in
            guard let id = row.id(1), let kind = RecordKind(rawValue: row.text(2)),
                  let type = MutationType(rawValue: row.text(3)) else {
                throw LedgerDataCacheError.damaged("an unreadable queued change at position \(row.int64(0))")
            }
            return DataPendingChange(position: row.int64(0), kind: kind, id: id, type: type, baseVersion: row.int64(4),
                                     fields: row.isNull(5) ? nil : try Self.fields(row.text(5)),
                                     mutationId: row.isNull(6) ? nil : row.int64(6))
        }
    }

    private func queue(_ kind: RecordKind, id: UUID, type: MutationType, base: Int64, fields: LedgerDataFields?) throws {
        try connection.cached("INSERT INTO data_pending (id, kind, type, base_version, fields) VALUES (?1, ?2, ?3, ?4, ?5)").run([
            .id(id), .text(kind.rawValue), .text(type.rawValue), .integer(base),
            fields.map { .text(Self.text($0)) } ?? .null,
        ])
    }

    /// When money changed (a rule's amount or currency), both halves are sent: the person's whole pair
    /// (Protocol.md §7.4's client rule).
    private static func moneyPartners(of fields: LedgerDataFields, changed old: LedgerDataFields) -> LedgerDataFields {
        let moneyChanged = ["amount", "currency"].contains { name in
            guard let new = fields[name] else { return false }
            return !(old[name].map { $0.same(as: new) } ?? false)
        }
        guard moneyChanged else { return [:] }
        return fields.filter { $0.key == "amount" || $0.key == "currency" }
    }

    private static func decode(_ row: SQLiteRow) throws -> LocalDataRecord {
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
            "budgets, recurring rules and the ledger's time zone need the SQLite cache (cache.sqlite), not \(path); "
                + "unset EXPENSE_STORE=json to use it"
        case .damaged(let detail): "the cache's budgets and rules are damaged: \(detail)"
        }
    }
}
