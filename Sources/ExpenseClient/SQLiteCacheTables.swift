import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite

/// The statements of ``SQLiteExpenseStore`` over the cache's tables, on its one connection. Not a transaction
/// itself: the store keeps one for its lifetime, ``SQLiteExpenseStore/write(_:)`` runs it inside one SQLite
/// transaction, and the store's reads use it outside any. Every statement is prepared once and reused; every
/// value is bound.
final class SQLiteCacheTables: StoreTransaction {
    let connection: SQLiteConnection
    let location: String
    /// On during a bulk load (``SQLiteExpenseStore/beginBulkLoad()``): the indexes are dropped, so
    /// ``putSettled(_:)`` appends rows without looking for an earlier copy (duplicates are settled at the end).
    var bulkLoading = false
    /// The bulk load's append (``putSettled(_:)``), in ``settledColumns``' order.
    private lazy var bulkInsert = SQLiteRowStatement(
        connection: connection,
        head: "INSERT INTO expense(\(Self.settledColumns))", columns: ExpenseColumns.names.count + 4)

    init(connection: SQLiteConnection, location: String) {
        self.connection = connection
        self.location = location
    }

    // The columns of each table that holds an expense, its values named by ExpenseColumns (in that order).
    /// `expense`'s columns as ``decodeRecord(_:from:)`` reads them: the id, the values, the base version, deleted.
    static let recordColumns = "id, \(ExpenseColumns.list()), base_version, deleted"
    /// ``recordColumns`` and `seq`: a row that is the server's copy (``putSettled(_:)``'s).
    static let settledColumns = recordColumns + ", seq"
    /// `server_copy`'s columns, read as ``decodeRecord(_:from:)`` reads ``recordColumns``, then `seq`.
    static let serverCopyColumns = "id, \(ExpenseColumns.list()), version, deleted, seq"
    /// `outbox`'s columns as ``decodePending(_:)`` reads them (`position` first, then ``values(of:)``'s).
    static let outboxColumns = """
        position, mutation_id, state, type, expense_id, base_version, \(ExpenseColumns.list(ExpenseColumns.draftNames)),
        reject_reason, reject_field, reject_message, if_absent, kind, data_fields
        """
    /// `conflict`'s columns as ``decodeConflict(_:)`` reads them: the own side's draft, the daemon's record.
    static let conflictColumns = """
        expense_id, mine_type, mine_base_version, \(ExpenseColumns.list(ExpenseColumns.draftNames, prefix: "mine_")),
        \(ExpenseColumns.list(prefix: "theirs_")), theirs_version, theirs_seq, theirs_deleted
        """
    /// Where the own side's draft and the daemon's values start in a ``conflictColumns`` row.
    private static let conflictMine: Int32 = 3, conflictTheirs = conflictMine + ExpenseColumns.count
    /// Where the draft starts in an ``outboxColumns`` row, and the columns after it.
    private static let outboxDraft: Int32 = 6, outboxAfterDraft = outboxDraft + ExpenseColumns.count

    /// `?, ?, …`: `count` parameters.
    static func parameters(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ", ") }

    // MARK: - Local view

    func record(id: UUID) throws -> LocalRecord? {
        try connection.cached("SELECT \(Self.recordColumns) FROM expense WHERE id = ?1")
            .first([.id(id)]) { try decodeRecord($0) }
    }

    /// The local view changes: when the row was the server's copy (`seq` set), that copy moves to server_copy
    /// first, so it outlives the local change.
    func putRecord(_ record: LocalRecord) throws {
        let id = SQLiteValue.id(record.expense.id)
        try connection.cached("""
            INSERT INTO server_copy(\(Self.serverCopyColumns))
            SELECT \(Self.settledColumns) FROM expense WHERE id = ? AND seq IS NOT NULL
            """).run([id])
        var row = SQLiteValueRow([id])
        try ExpenseColumns.write(record.expense, to: &row)
        row.values += [.integer(record.baseVersion), SQLiteValue(record.deleted)]
        try connection.cached("""
            INSERT INTO expense(\(Self.recordColumns), seq) VALUES (\(Self.parameters(row.values.count)), NULL)
            ON CONFLICT(id) DO UPDATE SET \(ExpenseColumns.replacingExcluded()),
                base_version = excluded.base_version, deleted = excluded.deleted, seq = NULL
            """).run(row.values)
    }

    func removeRecord(_ id: UUID) throws {
        try connection.cached("DELETE FROM expense WHERE id = ?1").run([.id(id)])
    }

    func renameRecord(_ old: UUID, to new: UUID) throws {
        try connection.cached("UPDATE expense SET id = ?2 WHERE id = ?1").run([.id(old), .id(new)])
    }

    // MARK: - Server copies

    /// A server_copy row, else the expense row when it is the server's copy (`seq` set; migration 4).
    func serverCopy(id: UUID) throws -> Record? {
        let key = SQLiteValue.id(id)
        return try connection.cached("""
            SELECT \(Self.serverCopyColumns) FROM server_copy WHERE id = ?1
            UNION ALL
            SELECT \(Self.settledColumns) FROM expense WHERE id = ?1 AND seq IS NOT NULL
            """).first([key]) { try decodeServerCopy($0) }
    }

    /// The server_copy rows and the expense rows holding their own copy (`seq` set) above `seq`.
    func serverCopies(seqAbove seq: Int64) throws -> [Record] {
        try connection.cached("""
            SELECT \(Self.serverCopyColumns) FROM server_copy WHERE seq > ?1
            UNION ALL
            SELECT \(Self.settledColumns) FROM expense WHERE seq > ?1
            """).map([.integer(seq)]) { try decodeServerCopy($0) }
    }

    /// Stores the server copy in server_copy; an expense row that held an older copy no longer does.
    func putServerCopy(_ record: Record) throws {
        let values = Self.settledValues(of: record)
        try connection.cached("""
            INSERT OR REPLACE INTO server_copy(\(Self.serverCopyColumns)) VALUES (\(Self.parameters(values.count)))
            """).run(values)
        try connection.cached("UPDATE expense SET seq = NULL WHERE id = ?1 AND seq IS NOT NULL").run([values[0]])
    }

    func isSettled() throws -> Bool {
        // Only expense entries count: a queued budget, rule or setting leaves every expense's view its server copy.
        try connection.cached("SELECT NOT EXISTS (SELECT 1 FROM outbox WHERE kind = 'expense') AND NOT EXISTS (SELECT 1 FROM conflict)")
            .first { $0.int64(0) != 0 } ?? false
    }

    /// The record becomes the expense row itself (with its `seq`), replacing a server_copy row of a version no
    /// higher; a stored copy of a higher version (and no lower seq: an id recreated after a compaction purged its
    /// tombstone starts again at version 1, Protocol.md §5.9) wins and nothing changes.
    func putSettled(_ record: Record) throws {
        if bulkLoading {
            try putSettled([record])
            return
        }
        let values = Self.settledValues(of: record)
        let id = values[0], version = SQLiteValue.integer(record.version), seq = SQLiteValue.integer(record.seq)
        let newer = try connection.cached("""
            SELECT EXISTS (SELECT 1 FROM server_copy WHERE id = ?1 AND version > ?2 AND seq >= ?3)
                OR EXISTS (SELECT 1 FROM expense WHERE id = ?1 AND seq IS NOT NULL AND base_version > ?2 AND seq >= ?3)
            """).first([id, version, seq]) { $0.int64(0) != 0 } ?? false
        guard !newer else { return }  // a newer copy is stored: the local view follows it already
        try connection.cached("DELETE FROM server_copy WHERE id = ?1").run([id])
        try connection.cached("""
            INSERT INTO expense(\(Self.settledColumns)) VALUES (\(Self.parameters(values.count)))
            ON CONFLICT(id) DO UPDATE SET \(ExpenseColumns.replacingExcluded()),
                base_version = excluded.base_version, deleted = excluded.deleted, seq = excluded.seq
            """).run(values)
    }

    /// In a bulk load the rows are appended by one multi-row INSERT of up to ``SQLiteRowStatement/maximumRows``
    /// rows, prepared once for the store and bound value by value as ``ExpenseCore/ExpenseColumns`` writes an
    /// expense (no array of values, no lookup of the statement by its text per chunk). The live totals (whose
    /// triggers are dropped meanwhile) get one addition per currency of the page. Otherwise one by one.
    func putSettled(_ records: [Record]) throws {
        guard bulkLoading else {
            for record in records { try putSettled(record) }
            return
        }
        // Each row read in place from the buffer (a copy of a record per row retains its strings) and bound
        // through one writer that lives for the whole run.
        try records.withUnsafeBufferPointer { records in
            try bulkInsert.run(count: records.count) { binder, index in
                try withUnsafeBytes(of: records[index].expense.id.uuid) { try binder.blob($0) }
                try binder.expenseColumns { try ExpenseColumns.write(records[index].expense, to: &$0) }
                try binder.integer(records[index].version)
                try binder.integer(records[index].deleted ? 1 : 0)
                try binder.integer(records[index].seq)
            }
        }
        try addBulkTotals(of: records)
    }

    /// A server copy's values in ``settledColumns``' order (which ``serverCopyColumns`` shares).
    private static func settledValues(of record: Record) -> [SQLiteValue] {
        var row = SQLiteValueRow([.id(record.expense.id)])
        try? ExpenseColumns.write(record.expense, to: &row)  // an expense's values, appended to an array: cannot fail
        return row.values + [.integer(record.version), SQLiteValue(record.deleted), .integer(record.seq)]
    }

    // MARK: - Outbox

    func pending(for id: UUID) throws -> [PendingMutation] {
        try connection.cached("SELECT \(Self.outboxColumns) FROM outbox WHERE expense_id = ?1 ORDER BY position")
            .map([.id(id)]) { try decodePending($0) }
    }

    /// The rejected queue entries, in queue order.
    func rejected() throws -> [PendingMutation] {
        try connection.cached("SELECT \(Self.outboxColumns) FROM outbox WHERE state = 'rejected' ORDER BY position")
            .map { try decodePending($0) }
    }

    func pending(after position: Int64, limit: Int) throws -> [PendingMutation] {
        try connection.cached("SELECT \(Self.outboxColumns) FROM outbox WHERE position > ?1 ORDER BY position LIMIT ?2")
            .map([.integer(position), SQLiteValue(limit)]) { try decodePending($0) }
    }

    func appendPending(_ mutation: PendingMutation) throws -> PendingMutation {
        try connection.cached("""
            INSERT INTO outbox(\(Self.outboxColumns))
            VALUES ((SELECT coalesce(max(position), 0) + 1 FROM outbox), \(Self.parameters(Self.outboxValueCount)))
            """).run(try values(of: mutation))
        var stored = mutation
        stored.position = try connection.cached("SELECT max(position) FROM outbox").first { $0.int64(0) } ?? 0
        return stored
    }

    func updatePending(_ mutation: PendingMutation) throws {
        // The columns after `position`, each set from its value in order.
        try connection.cached("""
            UPDATE outbox SET (\(Self.outboxColumns.split(separator: ",").dropFirst().joined(separator: ","))) =
                (\(Self.parameters(Self.outboxValueCount))) WHERE position = ?
            """).run(try values(of: mutation) + [.integer(mutation.position)])
    }

    func removePending(position: Int64) throws {
        try connection.cached("DELETE FROM outbox WHERE position = ?1").run([.integer(position)])
    }

    /// An outbox row's values after `position`, in ``outboxColumns``' order.
    /// - Throws: ``ExpenseCore/ValidationError/invalidText(_:)`` for a draft value that the optional fields' text
    ///   cannot hold (one no valid value is).
    private func values(of mutation: PendingMutation) throws -> [SQLiteValue] {
        var row = SQLiteValueRow([SQLiteValue(mutation.mutationId), .text(mutation.state.rawValue), .text(mutation.type.rawValue),
                                  .id(mutation.id), .integer(mutation.baseVersion)])
        try ExpenseColumns.write(mutation.fields, to: &row)
        return row.values + [SQLiteValue(mutation.rejection?.reason), SQLiteValue(mutation.rejection?.field),
                             SQLiteValue(mutation.rejection?.message), SQLiteValue(mutation.ifAbsent), .text(mutation.kind.rawValue),
                             mutation.kind == .expense ? .null : .text(LedgerDataCache.text(mutation.data))]
    }

    /// How many values ``values(of:)`` gives.
    private static let outboxValueCount = Int(outboxAfterDraft) - 1 + 6

    // MARK: - Conflicts

    func conflict(id: UUID) throws -> Conflict? {
        try connection.cached("SELECT \(Self.conflictColumns) FROM conflict WHERE expense_id = ?1")
            .first([.id(id)]) { try decodeConflict($0) }
    }

    func putConflict(_ conflict: Conflict) throws {
        var row = SQLiteValueRow([.id(conflict.id), .text(conflict.mine.rawValue), .integer(conflict.mineBaseVersion)])
        try ExpenseColumns.write(conflict.mineFields, to: &row)
        try ExpenseColumns.write(conflict.theirs.expense, to: &row)
        row.values += [.integer(conflict.theirs.version), .integer(conflict.theirs.seq), SQLiteValue(conflict.theirs.deleted)]
        // Every column but the id is replaced; `found` (the conflict's order) stays.
        let replaced = Self.conflictColumns.split(separator: ",").dropFirst()
            .map { $0.trimmingWhitespace }
        try connection.cached("""
            INSERT INTO conflict(found, \(Self.conflictColumns))
            VALUES ((SELECT coalesce(max(found), 0) + 1 FROM conflict), \(Self.parameters(row.values.count)))
            ON CONFLICT(expense_id) DO UPDATE SET \(ExpenseColumns.replacingExcluded(replaced))
            """).run(row.values)
    }

    func removeConflict(id: UUID) throws {
        try connection.cached("DELETE FROM conflict WHERE expense_id = ?1").run([.id(id)])
    }

    // MARK: - Meta

    func metaValue(_ key: StoreMetaKey) throws -> String? {
        try connection.cached("SELECT value FROM meta WHERE key = ?1").first([.text(key.rawValue)]) { $0.text(0) }
    }

    func setMetaValue(_ value: String?, for key: StoreMetaKey) throws {
        if let value {
            try connection.cached("INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
                .run([.text(key.rawValue), .text(value)])
        } else {
            try connection.cached("DELETE FROM meta WHERE key = ?1").run([.text(key.rawValue)])
        }
    }

    // MARK: - Rows

    /// Rebuilds a record from a row this program wrote after validating it. A value that no longer parses
    /// means the file was damaged or edited by hand: that is reported, never skipped.
    func decodeRecord(_ row: SQLiteRow, from first: Int32 = 0) throws -> LocalRecord {
        let expense = try decodeExpense(row, idColumn: first, from: first + 1)
        let after = first + 1 + ExpenseColumns.count
        return LocalRecord(expense: expense, baseVersion: row.int64(after), deleted: row.int64(after + 1) != 0)
    }

    /// A ``serverCopyColumns`` (or ``settledColumns``) row.
    private func decodeServerCopy(_ row: SQLiteRow) throws -> Record {
        let local = try decodeRecord(row)
        return Record(expense: local.expense, version: local.baseVersion, seq: row.int64(ExpenseColumns.count + 3),
                      deleted: local.deleted)
    }

    /// The id in column `idColumn`; the values (``ExpenseColumns``) from column `first` on.
    private func decodeExpense(_ row: SQLiteRow, idColumn: Int32, from first: Int32) throws -> Expense {
        guard let id = row.id(idColumn), let expense = ExpenseColumns.read(id: id, from: row, at: first) else {
            throw StoreError.damaged(path: location, reason: "the row of expense '\(row.idDescription(idColumn))' is damaged")
        }
        return expense
    }

    func decodePending(_ row: SQLiteRow) throws -> PendingMutation {
        let after = Self.outboxAfterDraft
        guard let state = PendingMutation.State(rawValue: row.text(2)), let type = MutationType(rawValue: row.text(3)),
              let id = row.id(4), let kind = RecordKind(rawValue: row.text(after + 4)),
              let data = row.isNull(after + 5) ? [:] : try? LedgerDataCache.fields(row.text(after + 5)) else {
            throw StoreError.damaged(path: location, reason: "queue entry \(row.int64(0)) is damaged")
        }
        return PendingMutation(
            position: row.int64(0), mutationId: row.isNull(1) ? nil : row.int64(1), state: state, type: type, kind: kind,
            id: id, baseVersion: row.int64(5), fields: ExpenseColumns.readDraft(from: row, at: Self.outboxDraft), data: data,
            rejection: row.optionalText(after).map {
                MutationRejection(reason: $0, field: row.optionalText(after + 1), message: row.optionalText(after + 2) ?? $0)
            },
            ifAbsent: row.int64(after + 3) != 0)
    }

    func decodeConflict(_ row: SQLiteRow) throws -> Conflict {
        guard let id = row.id(0), let mine = MutationType(rawValue: row.text(1)) else {
            throw StoreError.damaged(path: location, reason: "the conflict of expense '\(row.idDescription(0))' is damaged")
        }
        let theirs = try decodeExpense(row, idColumn: 0, from: Self.conflictTheirs)
        let after = Self.conflictTheirs + ExpenseColumns.count
        return Conflict(
            id: id, mine: mine, mineBaseVersion: row.int64(2), mineFields: ExpenseColumns.readDraft(from: row, at: Self.conflictMine),
            theirs: Record(expense: theirs, version: row.int64(after), seq: row.int64(after + 1), deleted: row.int64(after + 2) != 0))
    }
}

/// A bulk-load row bound as ``ExpenseCore/ExpenseColumns`` writes an expense (so the bulk load holds every
/// column the cache's other statements do); texts are copied into the run's arena, which costs no allocation.
private struct BulkRow: ExpenseColumnWriter {
    var binder: SQLiteRowBinder

    @inline(__always) mutating func integer(_ value: Int64) throws { try binder.integer(value) }
    @inline(__always) mutating func text(_ value: String) throws { try binder.text(value) }
    mutating func null() throws { try binder.null() }
}

extension SQLiteRowBinder {
    /// Runs `body` with a writer over this binder, which then continues where the writer left it.
    @inline(__always)
    fileprivate mutating func expenseColumns(_ body: (inout BulkRow) throws -> Void) throws {
        var row = BulkRow(binder: self)
        defer { self = row.binder }
        try body(&row)
    }
}
