import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import SQLite

/// A creation's four columns in SQLite: the client's id as its 16 bytes, NULL in each for a row that implies none.
extension RecordCreation {
    /// Binds the four columns of `creation`; NULL in each for a row whose creation is not implied by it.
    static func write(_ creation: RecordCreation?, to row: inout SQLiteRowBinder) throws {
        guard let creation else {
            for _ in columns { try row.null() }
            return
        }
        try row.integer(creation.seq)
        if let who = creation.who { try row.text(who) } else { try row.null() }
        try SQLiteLedgerStore.bind(creation.clientId, to: &row)
        try row.integer(creation.time)
    }

    /// The creation read from the four columns starting at `first`; `nil` where they are NULL (an older row).
    init?(row: SQLiteRow, at first: Int32) throws {
        if row.isNull(first + 3) { return nil }
        guard let clientId = row.withBlob(first + 2, SQLiteLedgerStore.uuid(raw:)) else {
            throw LedgerError.storageFailed("a record's creation has a damaged client id in the database")
        }
        self.init(seq: row.int64(first), who: row.optionalText(first + 1), clientId: clientId, time: row.int64(first + 3))
    }
}

extension SQLiteLedgerStore {
    /// The creation a committed row of `seq` carries, as the last read of it (``record(id:)``) found it, or read now.
    func committedCreation(seq: Int64) throws -> RecordCreation? {
        if let last = lastReadCreation, last.seq == seq { return last.creation }
        return try connection.cached("SELECT \(RecordCreation.list) FROM records WHERE seq = ?1")
            .first([.integer(seq)]) { try RecordCreation(row: $0, at: 0) } ?? nil
    }

    /// The creation the version replacing `old` carries forward (`nil`: none, or `old`'s row has none).
    func carriedCreation(replacing old: StoredRecord?) throws -> RecordCreation? {
        guard let old else { return nil }
        let creation = old.seq >= pendingVersions.firstSeq
            ? pendingVersions.creation(seq: old.seq) : try committedCreation(seq: old.seq)
        return creation?.carried(from: old.seq)
    }

    /// Makes the record just written (a creation) carry its create entry, instead of a `history` row; `false`
    /// when that write did not create a record with no row before it (the entry is then a `history` row).
    func implyCreation(of entry: HistoryEntry) -> Bool {
        guard entry.kind == .expense, entry.action == .create, entry.version == 1,
              let last = undo.last, last.id == entry.id, last.seq == nil else { return false }
        return pendingVersions.setCreation(RecordCreation(seq: 0, who: entry.who, clientId: entry.clientId, time: entry.time),
                                           seq: entry.seq)
    }

    // MARK: - Reading

    /// A `records` row with its creation: ``RecordColumns/list``, then ``RecordCreation/list``.
    static let recordWithCreation = "\(RecordColumns.list), \(RecordCreation.list)"
    static let creationColumn = Int32(RecordColumns.names.count)

    /// The create entry of the record whose current row is `record` (its creation `creation`, seq resolved), its
    /// later changes read by walking back from its row (``RecordCreation/entry(of:later:)``).
    /// - Throws: ``LedgerError/storageFailed(_:)`` when a change between the two is missing from `history`.
    func createEntry(of record: StoredRecord, creation: RecordCreation) throws -> HistoryEntry {
        var later: [HistoryEntry] = []
        var seq = record.seq
        while seq != creation.seq {
            guard seq > creation.seq, let (entry, previous) = try historyRow(seq: seq) else {
                throw LedgerError.storageFailed("the history of record \(UUIDText.lowercased(record.expense.id)) misses the change at seq \(seq)")
            }
            later.append(entry)
            seq = previous
        }
        return creation.entry(of: record, later: later)
    }

    /// The implied create entries with seqs above `since` and times at or after `sinceTime`, up to `limit`, in seq
    /// order: those of records never changed (their own rows, in the table's order) merged with those of records
    /// changed since (by `records_created`).
    func createEntries(since: Int64, sinceTime: Int64, limit: Int) throws -> [HistoryEntry] {
        let parameters: [SQLiteValue] = [.integer(since), .integer(sinceTime), .integer(Int64(limit))]
        let unchanged = try connection.cached("""
            SELECT \(Self.recordWithCreation) FROM records WHERE seq > ?1 AND created_seq = 0 AND created_time >= ?2
            ORDER BY seq LIMIT ?3
            """).map(parameters) { row in
            let record = try StoredRecord(row: row)
            return try createEntry(of: record, creation: Self.creation(row).carried(from: record.seq))
        }
        let changed = try connection.cached("""
            SELECT \(Self.recordWithCreation) FROM records WHERE created_seq > 0 AND created_seq > ?1 AND created_time >= ?2
            ORDER BY created_seq LIMIT ?3
            """).map(parameters) { row in (try StoredRecord(row: row), try Self.creation(row)) }
        var entries = unchanged
        for (record, creation) in changed { entries.append(try createEntry(of: record, creation: creation)) }
        entries.sort { $0.seq < $1.seq }
        return Array(entries.prefix(limit))
    }

    /// The creation of a row read with ``recordWithCreation``, which the statement asked for (not NULL).
    private static func creation(_ row: SQLiteRow) throws -> RecordCreation {
        guard let creation = try RecordCreation(row: row, at: creationColumn) else {
            throw LedgerError.storageFailed("a record's creation is missing in the database")
        }
        return creation
    }

    /// The create entry of the expense `id` when its row implies one, with the seq it took; `nil` otherwise.
    func createEntry(id: UUID, seq: Int64) throws -> HistoryEntry? {
        try connection.cached("SELECT \(Self.recordWithCreation) FROM records WHERE seq = ?1").first([.integer(seq)]) { row in
            let record = try StoredRecord(row: row)
            guard record.expense.id == id, let creation = try RecordCreation(row: row, at: Self.creationColumn) else { return nil }
            return try createEntry(of: record, creation: creation.carried(from: record.seq))
        } ?? nil
    }

    /// The seq of the first implied creation above `floor` made at or after `cutoff` (compaction's horizon), if any.
    func firstCreation(after floor: Int64, madeSince cutoff: Int64) throws -> Int64? {
        try connection.prepare("""
            SELECT min(CASE created_seq WHEN 0 THEN seq ELSE created_seq END) FROM records
            WHERE created_time >= ?1 AND CASE created_seq WHEN 0 THEN seq ELSE created_seq END > ?2
            """).first([.integer(cutoff), .integer(floor)]) { $0.isNull(0) ? nil : $0.int64(0) } ?? nil
    }

    /// How many implied creations have seqs in `range` (the entries a compaction that raised the horizon removed).
    func creationCount(in range: ClosedRange<Int64>) throws -> Int {
        try connection.prepare("""
            SELECT count(*) FROM records WHERE created_time IS NOT NULL
            AND CASE created_seq WHEN 0 THEN seq ELSE created_seq END BETWEEN ?1 AND ?2
            """).first([.integer(range.lowerBound), .integer(range.upperBound)]) { $0.int(0) } ?? 0
    }
}
