import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import SQLite

/// The history (Protocol.md §5.8) and compaction of the SQLite store: tables `history` and `history_meta`
/// (migration 4, `SQLiteLedgerStore+Schema.swift`).
///
/// Each entry is keyed by its `seq`, so appending one costs an insert at the end of the table (no index on
/// the random record ids, for the reason given at ``SQLiteLedgerStore/migrations``). `previous` is the seq of
/// the record's change before it (0 for a create), so one record's history is a walk back from its current seq.
/// An expense created since migration 14 has no `history` row for its creation: its `records` rows imply the
/// entry (``SQLiteLedgerStore/creationColumnsMigration``, `SQLiteLedgerStore+Creations.swift`), and the walk
/// ends there.
extension SQLiteLedgerStore {
    static let historyActions: [HistoryEntry.Action] = [.create, .edit, .delete, .restore]
    /// The `kind` column's values (migration 6; the PostgreSQL store's too), by index: the kinds in their declared
    /// order, which is why a new kind is declared last (``RecordKind``).
    static let historyKinds: [RecordKind] = RecordKind.allCases

    /// The bit mask of the kinds `request` wants (bit n: ``historyKinds``[n]), matched in SQL.
    private static func kindMask(_ request: HistoryRequest) -> Int64 {
        historyKinds.enumerated().reduce(0) { mask, kind in request.wants(kind.element) ? mask | (1 << Int64(kind.offset)) : mask }
    }

    /// Keeps the entry for the group's one multi-row insert before COMMIT (``flushHistory()``), in the same
    /// transaction as its change.
    /// - Precondition: called right after the ``write(_:replacing:)`` of the change it describes, whose last
    ///   `undo` step holds the record's seq before it (what `previous` links to).
    package func appendHistory(_ entry: HistoryEntry) throws {
        if implyCreation(of: entry) { return }
        let previous = entry.kind == .expense
            ? undo.last.flatMap { $0.id == entry.id ? $0.seq : nil } ?? 0
            : lastDataWrite.flatMap { $0.id == entry.id ? $0.previous : nil } ?? 0
        pendingHistory.append(PendingHistoryRow(entry, previous: previous))
    }

    /// The entry of `record`'s creation (just written): its row carries it (``implyCreation(of:)``). When that write found the id already placed (the id → seq map and
    /// the rules' read disagreed), the entry is a `history` row linked to that seq, as ``appendHistory(_:)`` writes.
    /// - Throws: ``LedgerError/storageFailed(_:)`` when the last write was not `record`'s.
    package func appendCreation(of record: StoredRecord, clientId: UUID, author: HistoryAuthor) throws {
        guard !record.deleted, let last = undo.last, last.id == record.expense.id else {
            throw LedgerError.storageFailed("the history of record \(UUIDText.lowercased(record.expense.id)) does not follow its write")
        }
        let creation = RecordCreation(seq: 0, who: author.who, clientId: clientId, time: author.time)
        guard last.seq == nil, record.version == 1, pendingVersions.setCreation(creation, seq: record.seq) else {
            return try appendHistory(HistoryEntry(from: nil, to: record, clientId: clientId, author: author))
        }
    }

    /// Writes the transaction's history entries in seq order.
    func flushHistory() throws {
        let history = pendingHistory
        try rows.history.run(count: history.count) { row, index in try Self.bind(history[index], to: &row) }
    }

    /// Binds one `history` row: `entry`'s 10 columns.
    private static func bind(_ entry: PendingHistoryRow, to row: inout SQLiteRowBinder) throws {
        try row.integer(entry.seq)
        try bind(entry.id, to: &row)
        try row.integer(entry.previous)
        try row.integer(entry.version)
        try row.integer(Int64(historyActions.firstIndex(of: entry.action) ?? 0))
        try entry.changes.withUnsafeBytes { try row.text(utf8: $0) }
        try row.text(entry.who)
        try bind(entry.clientId, to: &row)
        try row.integer(entry.time)
        try row.integer(Int64(historyKinds.firstIndex(of: entry.kind) ?? 0))
    }

    static let historyColumns = "seq, id, previous, version, action, changes, who, client, time, kind"

    static func decodeHistory(_ row: SQLiteRow) throws -> (entry: HistoryEntry, previous: Int64) {
        let action = Int(row.int64(4)), kindIndex = Int(row.int64(9))
        guard historyActions.indices.contains(action), historyKinds.indices.contains(kindIndex) else {
            throw LedgerError.storageFailed("a history entry has an unknown action or kind")
        }
        let kind = historyKinds[kindIndex]
        let changes: [HistoryEntry.Change]
        do {
            changes = try HistoryEntry.changes(json: try JSONParser.parse(Array(row.text(5).utf8)), path: "changes", kind: kind)
        } catch {
            throw LedgerError.storageFailed("history entry \(row.int64(0)) does not decode: \(error)")
        }
        var entry = HistoryEntry(seq: row.int64(0), id: try uuid(row.blob(1)), version: row.int64(3),
                                 action: historyActions[action], changes: changes, who: row.optionalText(6),
                                 clientId: try uuid(row.blob(7)), time: row.int64(8))
        entry.kind = kind
        return (entry, row.int64(2))
    }

    /// The `history` row of `seq` and the seq it links to, if there is one.
    func historyRow(seq: Int64) throws -> (entry: HistoryEntry, previous: Int64)? {
        try connection.cached("SELECT \(Self.historyColumns) FROM history WHERE seq = ?1").first([.integer(seq)], Self.decodeHistory)
    }

    package func history(_ request: HistoryRequest, limit: Int) throws -> [HistoryEntry] {
        let sinceTime = request.sinceTime ?? 0
        if let id = request.id {
            // Walk back from the record's current change; a record has few versions. The walk ends at the change
            // no `history` row holds: an expense's implied creation (above the horizon), or the end of what is kept.
            var entries: [HistoryEntry] = []
            let expenseSeq = seqById[id]
            var seq = try expenseSeq ?? dataRecord(id: id)?.seq ?? 0
            while seq > request.since {
                guard let (entry, previous) = try historyRow(seq: seq) else {
                    if let expenseSeq, seq > (try purgeHorizon()), let entry = try createEntry(id: id, seq: expenseSeq),
                       entry.seq == seq, entry.time >= sinceTime {
                        entries.append(entry)
                    }
                    break
                }
                if entry.time >= sinceTime, request.wants(entry.kind) { entries.append(entry) }
                seq = previous
            }
            return Array(entries.reversed().prefix(limit))
        }
        let rows = try connection.cached("""
            SELECT \(Self.historyColumns) FROM history WHERE seq > ?1 AND time >= ?2 AND (?4 >> kind) & 1 = 1
            ORDER BY seq LIMIT ?3
            """).map([.integer(request.since), .integer(sinceTime), .integer(Int64(limit)),
                      .integer(Self.kindMask(request))]) {
            try Self.decodeHistory($0).entry
        }
        guard request.wants(.expense) else { return rows }
        // Both in seq order, each up to `limit`: the first `limit` of the two merged are the answer.
        let creations = try createEntries(since: max(request.since, try purgeHorizon()), sinceTime: sinceTime, limit: limit)
        guard !creations.isEmpty else { return rows }
        return Array((rows + creations).sorted { $0.seq < $1.seq }.prefix(limit))
    }

    private func historyMeta(_ key: String) throws -> Int64? {
        try connection.cached("SELECT value FROM history_meta WHERE key = ?1").first([.text(key)]) { $0.int64(0) }
    }

    private func setHistoryMeta(_ key: String, _ value: Int64) throws {
        try connection.cached("INSERT OR REPLACE INTO history_meta (key, value) VALUES (?1, ?2)").run([.text(key), .integer(value)])
    }

    package func purgeHorizon() throws -> Int64 { try historyMeta("horizon") ?? 0 }

    /// How many rows one compaction step removes: small enough that a serving daemon's commits, which wait for
    /// the write lock (`busy_timeout`), wait milliseconds, not seconds.
    static let compactionBatch = 2_000

    /// Compaction in steps, each its own transaction: first the new horizon (so no client relies on what goes
    /// next), then history entries at or below it, a batch at a time. A crash between steps leaves the horizon
    /// raised and some entries not yet removed; the next compaction removes them.
    ///
    /// Tombstones are purged, not removed: a tombstone at or below the horizon leaves every pull (a pull from 0
    /// no longer carries it, ``changes(since:limit:snapshot:maximumBytes:)``) but keeps its row, so a later change of its id meets the
    /// deletion (a re-create is an edit-versus-delete conflict, Protocol.md §5.9) and nothing a serving daemon
    /// holds in memory about records — its id → seq map, its totals, the seq a new history entry links to —
    /// can go stale when another process compacts the file.
    ///
    /// The horizon is the seq just below the first change made at or after `cutoff`, never above the head
    /// minus one (the head's row stays, so the next seq is never reused). Changes made before the history
    /// began (migration 4) count as made when it began.
    package func compact(before cutoff: Int64) throws -> CompactionReport {
        let headNow = try connection.prepare("SELECT max(seq) FROM records").first { $0.int64(0) } ?? 0
        let startTime = try historyMeta("start_time") ?? 0
        let startSeq = try historyMeta("start_seq") ?? 0
        let oldHorizon = try purgeHorizon()
        var firstYoung = try connection.prepare("SELECT min(seq) FROM history WHERE time >= ?1")
            .first([.integer(cutoff)]) { $0.isNull(0) ? nil : $0.int64(0) } ?? nil
        // Implied creations at or below the old horizon are gone already, as their rows would be.
        if let creation = try firstCreation(after: oldHorizon, madeSince: cutoff) { firstYoung = min(firstYoung ?? creation, creation) }
        if startSeq > 0, startTime >= cutoff { firstYoung = 1 }
        var horizon = (firstYoung ?? headNow + 1) - 1
        horizon = max(min(horizon, headNow - 1), oldHorizon)
        guard horizon > 0 else { return CompactionReport(horizon: oldHorizon, tombstones: 0, entries: 0) }
        let newHorizon = horizon
        let tombstones: Int = try connection.transaction {
            try setHistoryMeta("horizon", newHorizon)
            return try connection.prepare("SELECT count(*) FROM records WHERE seq > ?1 AND seq <= ?2 AND deleted = 1")
                .first([.integer(oldHorizon), .integer(newHorizon)]) { $0.int(0) } ?? 0
        }
        // The implied creations the new horizon passed are gone with it: no row to delete.
        var entries = newHorizon > oldHorizon ? try creationCount(in: (oldHorizon + 1)...newHorizon) : 0
        while true {
            let count: Int = try connection.transaction {
                let seqs = try connection.cached("SELECT seq FROM history WHERE seq <= ?1 ORDER BY seq LIMIT ?2")
                    .map([.integer(newHorizon), .integer(Int64(Self.compactionBatch))]) { $0.int64(0) }
                if let last = seqs.last {
                    try connection.cached("DELETE FROM history WHERE seq <= ?1").run([.integer(last)])
                }
                return seqs.count
            }
            entries += count
            if count < Self.compactionBatch { break }
        }
        return CompactionReport(horizon: newHorizon, tombstones: tombstones, entries: entries)
    }
}
