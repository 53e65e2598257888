import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite

/// The budget, rule and setting tables of the SQLite cache (migrations 8 and 12): `data_record` is the local
/// view, `data_server_copy` the daemon's last-seen record, `data_conflict` an open conflict with both sides.
extension SQLiteCacheTables: DataKindTables {
    var dataTables: (any DataKindTables)? { self }

    func dataView(id: UUID) throws -> LocalDataRecord? {
        try connection.cached("""
            SELECT id, kind, fields, deleted, base_version, EXISTS (SELECT 1 FROM outbox p WHERE p.expense_id = r.id)
            FROM data_record r WHERE id = ?1
            """).first([.id(id)], LedgerDataCache.decode)
    }

    func putDataView(_ record: LocalDataRecord) throws {
        try connection.cached("""
            INSERT INTO data_record (id, kind, fields, deleted, base_version) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, fields = excluded.fields, deleted = excluded.deleted,
                base_version = excluded.base_version
            """).run([.id(record.id), .text(record.kind.rawValue), .text(LedgerDataCache.text(record.fields)),
                      SQLiteValue(record.deleted), .integer(record.baseVersion)])
    }

    func removeDataView(id: UUID) throws {
        try connection.cached("DELETE FROM data_record WHERE id = ?1").run([.id(id)])
    }

    func dataServerCopy(id: UUID) throws -> DataRecord? {
        try connection.cached("SELECT id, kind, fields, version, seq, deleted FROM data_server_copy WHERE id = ?1")
            .first([.id(id)]) { try decodeDataRecord($0) }
    }

    func putDataServerCopy(_ record: DataRecord) throws {
        try connection.cached("""
            INSERT INTO data_server_copy (id, kind, fields, version, seq, deleted) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, fields = excluded.fields, version = excluded.version,
                seq = excluded.seq, deleted = excluded.deleted
            """).run([.id(record.id), .text(record.kind.rawValue), .text(LedgerDataCache.text(record.fields)),
                      .integer(record.version), .integer(record.seq), SQLiteValue(record.deleted)])
    }

    func dataServerCopies(seqAbove seq: Int64) throws -> [DataRecord] {
        try connection.cached("SELECT id, kind, fields, version, seq, deleted FROM data_server_copy WHERE seq > ?1 ORDER BY seq")
            .map([.integer(seq)]) { try decodeDataRecord($0) }
    }

    func removeDataServerCopy(id: UUID) throws {
        try connection.cached("DELETE FROM data_server_copy WHERE id = ?1").run([.id(id)])
    }

    func dataConflict(id: UUID) throws -> DataConflict? {
        try connection.cached("SELECT id, kind, mine, theirs FROM data_conflict WHERE id = ?1")
            .first([.id(id)], LedgerDataCache.decodeConflict)
    }

    func putDataConflict(_ conflict: DataConflict) throws {
        var writer = JSONWriter()
        conflict.theirs.write(to: &writer)
        try connection.cached("INSERT OR REPLACE INTO data_conflict (id, kind, mine, theirs) VALUES (?1, ?2, ?3, ?4)").run([
            .id(conflict.id), .text(conflict.kind.rawValue), conflict.mine.map { .text(LedgerDataCache.text($0)) } ?? .null,
            .text(String(decoding: writer.bytes, as: UTF8.self)),
        ])
    }

    func removeDataConflict(id: UUID) throws {
        try connection.cached("DELETE FROM data_conflict WHERE id = ?1").run([.id(id)])
    }

    private func decodeDataRecord(_ row: SQLiteRow) throws -> DataRecord {
        guard let id = row.id(0), let kind = RecordKind(rawValue: row.text(1)), kind != .expense,
              let fields = try? LedgerDataCache.fields(row.text(2)), row.int64(3) >= 1 else {
            throw StoreError.damaged(path: location, reason: "the server copy of record '\(row.idDescription(0))' is damaged")
        }
        return DataRecord(kind: kind, id: id, fields: fields, version: row.int64(3), seq: row.int64(4), deleted: row.int64(5) != 0)
    }
}
