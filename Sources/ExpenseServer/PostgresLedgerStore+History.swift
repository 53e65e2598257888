import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import PostgreSQL

/// The history (Protocol.md §5.8) and compaction of the PostgreSQL store: table `history` and the ledger row's
/// `horizon`, `history_start_seq` and `history_start_time` (migration 1, `PostgresLedgerStore+Schema.swift`).
///
/// Entries are kept in the transaction (``pendingHistory``) and written in one statement before `COMMIT`, so
/// a change and its entry commit together or not at all, as with the records.
extension PostgresLedgerStore {
    package func appendHistory(_ entry: HistoryEntry) throws {
        precondition(inTransaction, "a history entry is written inside the transaction of its change")
        if entry.kind == .expense, entry.action == .create, entry.version == 1,
           keepCreation(RecordCreation(seq: entry.seq, who: entry.who, clientId: entry.clientId, time: entry.time), of: entry.id) {
            return
        }
        pendingHistory.append(PendingHistoryRow(entry, previous: 0))
    }

    /// Keeps `creation` with the pending record `id` when its write is a create (the row carries it); `false`
    /// otherwise, when the creation needs a `history` row.
    private func keepCreation(_ creation: RecordCreation, of id: UUID) -> Bool {
        guard let index = pendingRecords.index(forKey: id), pendingRecords.values[index].isNew else { return false }
        pendingRecords.values[index].creation = creation
        return true
    }

    /// The entry of `record`'s creation: its row carries it (migration 10, ``RecordCreation``); a create of an id the database already had (never, under the ledger's row
    /// lock) keeps a `history` row as ``appendHistory(_:)`` writes it.
    package func appendCreation(of record: StoredRecord, clientId: UUID, author: HistoryAuthor) throws {
        precondition(inTransaction, "a history entry is written inside the transaction of its change")
        let creation = RecordCreation(seq: record.seq, who: author.who, clientId: clientId, time: author.time)
        if record.version == 1, keepCreation(creation, of: record.expense.id) { return }
        try appendHistory(HistoryEntry(seq: record.seq, id: record.expense.id, version: record.version, action: .create,
                                       changes: HistoryEntry.changes(from: nil, to: record.expense),
                                       who: author.who, clientId: clientId, time: author.time))
    }

    /// Writes `entries` of `ledger` in one statement.
    static func insertHistory(_ entries: [HistoryEntry], ledger: Int64, connection: PostgresConnection) throws {
        let statement = insertHistoryStatement(entries.map { PendingHistoryRow($0, previous: 0) }, ledger: ledger)
        try connection.query(statement.sql, statement.parameters)
    }

    /// ``insertHistory(_:ledger:connection:)``'s statement (the transaction's entries go in its write batch).
    static func insertHistoryStatement(_ entries: [PendingHistoryRow], ledger: Int64) -> PostgresStatement {
        let count = entries.count
        var seqs = PostgresBinaryArray(.int8, capacity: count), ids = PostgresBinaryArray(.uuid, capacity: count)
        var versions = PostgresBinaryArray(.int8, capacity: count), actions = PostgresBinaryArray(.int2, capacity: count)
        var changes = PostgresBinaryArray(.text, capacity: count), whos = PostgresBinaryArray(.text, capacity: count)
        var clients = PostgresBinaryArray(.uuid, capacity: count), times = PostgresBinaryArray(.int8, capacity: count)
        var kinds = PostgresBinaryArray(.int2, capacity: count)
        for entry in entries {
            seqs.append(entry.seq)
            ids.append(entry.id)
            versions.append(entry.version)
            actions.append(Int64(SQLiteLedgerStore.historyActions.firstIndex(of: entry.action) ?? 0))
            changes.append(utf8: entry.changes)
            if let who = entry.who { whos.append(who) } else { whos.appendNull() }
            clients.append(entry.clientId)
            times.append(entry.time)
            kinds.append(Int64(SQLiteLedgerStore.historyKinds.firstIndex(of: entry.kind) ?? 0))
        }
        return PostgresStatement("""
            INSERT INTO history (ledger, seq, id, version, action, changes, who, client, time, kind)
            SELECT $1, * FROM unnest($2::bigint[], $3::uuid[], $4::bigint[], $5::smallint[], $6::text[], $7::text[],
                                     $8::uuid[], $9::bigint[], $10::smallint[])
            """, [.integer(ledger)] + [seqs, ids, versions, actions, changes, whos, clients, times, kinds].map(\.value))
    }

    package func history(_ request: HistoryRequest, limit: Int) throws -> [HistoryEntry] {
        if !inTransaction { try ensureConnected() }
        let wanted: [PostgresValue] = SQLiteLedgerStore.historyKinds.indices.filter { request.wants(SQLiteLedgerStore.historyKinds[$0]) }
            .map { .integer(Int64($0)) }
        let rows = try Self.storage {
            try connection.query("""
                SELECT seq, id, version, action, changes, who, client, time, kind FROM history
                WHERE ledger = $1 AND seq > $2 AND time >= $3 AND ($4::uuid IS NULL OR id = $4::uuid)
                  AND kind = ANY($6::smallint[])
                ORDER BY seq LIMIT $5
                """, [.integer(number), .integer(request.since), .integer(request.sinceTime ?? 0),
                      request.id.map { .text(UUIDText.lowercased($0)) } ?? .null, .integer(Int64(limit)),
                      .array(wanted)]).all
        }
        let entries = try rows.map(Self.decodeHistory)
        guard request.wants(.expense) else { return entries }
        // Both in seq order, each up to `limit`: the first `limit` of the two merged are the answer.
        let creations = try Self.storage {
            try Self.createEntries(ledger: number, since: max(request.since, try purgeHorizon()), sinceTime: request.sinceTime ?? 0,
                                   id: request.id, limit: limit, connection: connection)
        }
        guard !creations.isEmpty else { return entries }
        return Array((entries + creations).sorted { $0.seq < $1.seq }.prefix(limit))
    }

    /// The create entries the rows of `ledger` (its number) imply (migration 10) with seqs above `since`, made at or
    /// after `sinceTime`, of the record `id` alone when given, up to `limit`, in seq order: each rebuilt from its
    /// record's row and the record's later `history` rows (``RecordCreation/entry(of:later:)``).
    static func createEntries(ledger: Int64, since: Int64, sinceTime: Int64, id: UUID?, limit: Int,
                              connection: PostgresConnection) throws -> [HistoryEntry] {
        // One record's by its key, every record's in the order of `records_created`.
        let rows = try connection.query("""
            SELECT \(RecordColumns.list), \(RecordCreation.list) FROM records
            WHERE ledger = $1 AND created_seq > $2 AND created_time >= $3\(id == nil ? "" : " AND id = $5::uuid")
            ORDER BY created_seq LIMIT $4
            """, [.integer(ledger), .integer(since), .integer(sinceTime), .integer(Int64(limit))]
                + (id.map { [.text(UUIDText.lowercased($0))] } ?? [])).all
        guard !rows.isEmpty else { return [] }
        var records: [(record: StoredRecord, creation: RecordCreation)] = []
        var ids = PostgresBinaryArray(.uuid, capacity: rows.count)
        let first = RecordColumns.names.count
        for row in rows {
            let record = try StoredRecord(row: row)
            guard let clientId = UUIDText.parse(row.text(first + 2)) else {
                throw LedgerError.storageFailed("record \(UUIDText.lowercased(record.expense.id)) has an invalid creation client")
            }
            records.append((record, RecordCreation(seq: row.int64(first), who: row.optionalText(first + 1), clientId: clientId,
                                                   time: row.int64(first + 3))))
            ids.append(record.expense.id)
        }
        var later: [UUID: [HistoryEntry]] = [:]
        for row in try connection.query("""
            SELECT seq, id, version, action, changes, who, client, time, kind FROM history
            WHERE ledger = $1 AND id = ANY($2::uuid[]) ORDER BY seq DESC
            """, [.integer(ledger), ids.value]).all {
            let entry = try decodeHistory(row)
            later[entry.id, default: []].append(entry)
        }
        return records.map { record, creation in
            creation.entry(of: record, later: (later[record.expense.id] ?? []).filter { $0.seq > creation.seq })
        }
    }

    static func decodeHistory(_ row: PostgresRow) throws -> HistoryEntry {
        let action = Int(row.int64(3)), kindIndex = Int(row.int64(8))
        guard SQLiteLedgerStore.historyActions.indices.contains(action), SQLiteLedgerStore.historyKinds.indices.contains(kindIndex),
              let id = UUIDText.parse(row.text(1)), let client = UUIDText.parse(row.text(6)) else {
            throw LedgerError.storageFailed("history entry \(row.int64(0)) has an unknown action or kind, or an invalid id")
        }
        let kind = SQLiteLedgerStore.historyKinds[kindIndex]
        let changes: [HistoryEntry.Change]
        do {
            changes = try HistoryEntry.changes(json: try JSONParser.parse(Array(row.text(4).utf8)), path: "changes", kind: kind)
        } catch {
            throw LedgerError.storageFailed("history entry \(row.int64(0)) does not decode: \(error)")
        }
        var entry = HistoryEntry(seq: row.int64(0), id: id, version: row.int64(2), action: SQLiteLedgerStore.historyActions[action],
                                 changes: changes, who: row.optionalText(5), clientId: client, time: row.int64(7))
        entry.kind = kind
        return entry
    }

    package func purgeHorizon() throws -> Int64 {
        if !inTransaction { try ensureConnected() }
        return try Self.storage {
            try connection.query("SELECT horizon FROM ledgers WHERE name = $1", [.text(name)]).first?.int64(0) ?? 0
        }
    }

    /// Compaction by the SQLite store's rule (``SQLiteLedgerStore/compact(before:)``): the horizon first (which
    /// purges the tombstones at or below it), then history entries at or below it in steps of
    /// ``SQLiteLedgerStore/compactionBatch`` rows. Each step
    /// is a transaction holding the ledger's row lock, so it runs between the writes of every daemon (a
    /// restore of a tombstone never races its removal) and keeps them waiting milliseconds, not seconds.
    package func compact(before cutoff: Int64) throws -> CompactionReport {
        precondition(!inTransaction, "compaction runs its own transactions")
        try ensureConnected()
        return try Self.storage {
            let (old, horizon): (Int64, Int64) = try connection.transaction {
                guard let row = try connection.query("""
                    SELECT head, horizon, history_start_seq, history_start_time FROM ledgers WHERE name = $1 FOR UPDATE
                    """, [.text(name)]).first else { throw LedgerError.unknownLedger(name) }
                let (headNow, current, startSeq, startTime) = (row.int64(0), row.int64(1), row.int64(2), row.int64(3))
                var firstYoung = try connection.query("SELECT min(seq) FROM history WHERE ledger = $1 AND time >= $2",
                                                      [.integer(number), .integer(cutoff)]).first?.optionalInt64(0)
                // Implied creations at or below the horizon are gone already, as their rows would be.
                if let creation = try connection.query("""
                    SELECT min(created_seq) FROM records WHERE ledger = $1 AND created_time >= $2 AND created_seq > $3
                    """, [.integer(number), .integer(cutoff), .integer(current)]).first?.optionalInt64(0) {
                    firstYoung = min(firstYoung ?? creation, creation)
                }
                if startSeq > 0, startTime >= cutoff { firstYoung = 1 }
                let horizon = max(min((firstYoung ?? headNow + 1) - 1, headNow - 1), current)
                guard horizon > current else { return (current, current) }
                try connection.query("UPDATE ledgers SET horizon = $2 WHERE name = $1", [.text(name), .integer(horizon)])
                return (current, horizon)
            }
            guard horizon > 0 else { return CompactionReport(horizon: horizon, tombstones: 0, entries: 0) }
            // Tombstones are purged, not removed: out of every pull (``changes(since:limit:snapshot:maximumBytes:)``), their rows kept so
            // that a later change of the id meets the deletion (Protocol.md §5.9).
            let tombstones = try connection.query("""
                SELECT count(*) FROM records WHERE ledger = $1 AND deleted AND seq > $2 AND seq <= $3
                """, [.integer(number), .integer(old), .integer(horizon)]).first?.int64(0) ?? 0
            // The implied creations the new horizon passed are gone with it: no row to delete.
            let passed = horizon > old ? try connection.query("""
                SELECT count(*) FROM records WHERE ledger = $1 AND created_seq > $2 AND created_seq <= $3
                """, [.integer(number), .integer(old), .integer(horizon)]).first?.int64(0) ?? 0 : 0
            let entries = try removeInSteps("""
                DELETE FROM history WHERE ledger = $1 AND seq IN
                    (SELECT seq FROM history WHERE ledger = $1 AND seq <= $2 ORDER BY seq LIMIT $3)
                """, horizon: horizon)
            return CompactionReport(horizon: horizon, tombstones: Int(tombstones), entries: entries + Int(passed))
        }
    }

    /// Runs the `DELETE` (parameters: ledger, horizon, batch size) until a step removes less than a batch.
    private func removeInSteps(_ statement: String, horizon: Int64) throws -> Int {
        var removed = 0
        while true {
            let count = try connection.transaction { () throws -> Int in
                try connection.query("SELECT 1 FROM ledgers WHERE name = $1 FOR UPDATE", [.text(name)])
                return try connection.query(statement, [.integer(number), .integer(horizon),
                                                        .integer(Int64(SQLiteLedgerStore.compactionBatch))]).affectedRows
            }
            removed += count
            if count < SQLiteLedgerStore.compactionBatch { return removed }
        }
    }
}
