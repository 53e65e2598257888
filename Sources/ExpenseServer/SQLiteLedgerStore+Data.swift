import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import SQLite

/// Budgets, recurring rules and settings in SQLite (``LedgerDataStore``, Protocol.md §10).
extension SQLiteLedgerStore {
    /// Migration 5: one row per budget, rule or setting, keyed by `seq` like `records` (the two tables share
    /// the seq sequence: the head is the larger of their maxima). There are few of these records, so unlike
    /// `records` the id is indexed (UNIQUE) instead of mapped in memory. `fields` is the record's fields as
    /// canonical JSON (sorted keys); `field_versions` a JSON object of the version at which each conflict field
    /// last changed (``StoredDataRecord/fieldVersions``).
    static let dataRecordsMigration = """
        CREATE TABLE data_records (
            seq INTEGER PRIMARY KEY,
            id BLOB NOT NULL UNIQUE,
            kind TEXT NOT NULL,
            version INTEGER NOT NULL,
            deleted INTEGER NOT NULL,
            fields TEXT NOT NULL,
            field_versions TEXT NOT NULL
        );
        """

    /// The highest seq of the data records (0 when there is none).
    static func dataHead(_ connection: SQLiteConnection) throws -> Int64 {
        try connection.prepare("SELECT max(seq) FROM data_records").first { $0.int64(0) } ?? 0
    }

    package func dataRecord(id: UUID) throws -> StoredDataRecord? {
        guard try mayBeDataRecord(id) else { return nil }
        return try connection.cached(literal: """
            SELECT seq, id, kind, version, deleted, fields, field_versions FROM data_records WHERE id = ?1
            """).first([Self.blob(id)]) { try Self.decodeData($0) }
    }

    /// Whether `id` may be a data record's: `false` only when ``dataIds``, read from the table on first use,
    /// does not hold it. The rules ask this for every created expense id (Protocol.md §10: one id, one kind),
    /// and almost every id is none, so the answer comes from memory instead of the table's index.
    private func mayBeDataRecord(_ id: UUID) throws -> Bool {
        if dataIds == nil {
            var ids: Set<UUID> = []
            try connection.prepare("SELECT id FROM data_records").forEach { ids.insert(try Self.uuid($0.blob(0))) }
            dataIds = ids
        }
        return dataIds?.contains(id) ?? true
    }

    package func writeData(_ record: StoredDataRecord, replacing old: StoredDataRecord?) throws {
        try checkNextSeq(record.seq)
        try faults?.check(.write)
        if let old { try connection.cached("DELETE FROM data_records WHERE seq = ?1").run([.integer(old.seq)]) }
        lastDataWrite = (record.record.id, old?.seq ?? 0)
        // Before the write: a superset stays one even when the transaction rolls back.
        dataIds?.insert(record.record.id)
        try connection.cached("""
            INSERT INTO data_records (seq, id, kind, version, deleted, fields, field_versions)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
            """).run([
            .integer(record.seq), Self.blob(record.record.id), .text(record.record.kind.rawValue), .integer(record.version),
            .integer(record.deleted ? 1 : 0), .text(record.fieldsText), .text(record.fieldVersionsText),
        ])
        head = record.seq
    }

    package func dataChanges(since: Int64, limit: Int) throws -> [DataRecord] {
        try connection.cached("""
            SELECT seq, id, kind, version, deleted, fields, field_versions FROM data_records WHERE seq > ?1 ORDER BY seq LIMIT ?2
            """).map([.integer(since), .integer(Int64(limit))]) { try Self.decodeData($0).record }
    }

    static func decodeData(_ row: SQLiteRow) throws -> StoredDataRecord {
        guard let stored = StoredDataRecord(seq: row.int64(0), id: try uuid(row.blob(1)), kind: row.text(2), version: row.int64(3),
                                            deleted: row.int64(4) != 0, fieldsText: row.text(5), fieldVersionsText: row.text(6)) else {
            throw LedgerError.damagedDatabase(path: "data_records", report: "an unreadable row at seq \(row.int64(0))")
        }
        return stored
    }
}
