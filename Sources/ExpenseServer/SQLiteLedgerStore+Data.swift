import ExpenseCore
import ExpenseProtocol
import Foundation
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
        try connection.cached("""
            SELECT seq, id, kind, version, deleted, fields, field_versions FROM data_records WHERE id = ?1
            """).first([Self.blob(id)]) { try Self.decodeData($0) }
    }

    package func writeData(_ record: StoredDataRecord, replacing old: StoredDataRecord?) throws {
        precondition(record.seq == head + 1, "a write takes the next seq")
        if let error = faultInjection?(.write) { throw error }
        if let old { try connection.cached("DELETE FROM data_records WHERE seq = ?1").run([.integer(old.seq)]) }
        var fields = JSONWriter()
        LedgerDataJSON.write(.object(record.record.fields), to: &fields)
        let versions = JSONValue.object(record.fieldVersions.mapValues { .number(JSONNumber($0)) })
        try connection.cached("""
            INSERT INTO data_records (seq, id, kind, version, deleted, fields, field_versions)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
            """).run([
            .integer(record.seq), Self.blob(record.record.id), .text(record.record.kind.rawValue), .integer(record.version),
            .integer(record.deleted ? 1 : 0), .text(String(decoding: fields.bytes, as: UTF8.self)), .text(versions.jsonText),
        ])
        head = record.seq
    }

    package func dataChanges(since: Int64, limit: Int) throws -> [DataRecord] {
        try connection.cached("""
            SELECT seq, id, kind, version, deleted, fields, field_versions FROM data_records WHERE seq > ?1 ORDER BY seq LIMIT ?2
            """).map([.integer(since), .integer(Int64(limit))]) { try Self.decodeData($0).record }
    }

    private static func decodeData(_ row: SQLiteRow) throws -> StoredDataRecord {
        let id = try uuid(row.blob(1))
        guard let kind = RecordKind(rawValue: row.text(2)), kind != .expense,
              case .object(let members)? = try? JSONParser.parse(Array(row.text(5).utf8)),
              case .success(let fields) = LedgerDataJSON.fields(members),
              case .object(let versionMembers)? = try? JSONParser.parse(Array(row.text(6).utf8)) else {
            throw LedgerError.damagedDatabase(path: "data_records", report: "an unreadable row at seq \(row.int64(0))")
        }
        let record = DataRecord(kind: kind, id: id, fields: fields, version: row.int64(3), seq: row.int64(0), deleted: row.int64(4) != 0)
        return StoredDataRecord(record: record, fieldVersions: versionMembers.compactMapValues(\.int64Value))
    }
}
