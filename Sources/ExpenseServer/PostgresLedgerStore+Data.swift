import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import PostgreSQL

/// Budgets, recurring rules and settings in PostgreSQL (``LedgerDataStore``, Protocol.md §10): table
/// `data_records` (migration 1). Few and small, so each write is its own statement inside the transaction
/// (rolled back with it); their seqs come from the same ledger row's `head` as the expenses'.
extension PostgresLedgerStore {
    static let dataColumns = "seq, id, kind, version, deleted, fields, field_versions"

    package func dataRecord(id: UUID) throws -> StoredDataRecord? {
        if readAhead.ids.contains(id) { return readAhead.dataRecords[id] }
        if !inTransaction { try ensureConnected() }
        return try Self.storage {
            try connection.query("SELECT \(Self.dataColumns) FROM data_records WHERE ledger = $1 AND id = $2",
                                 [.integer(number), .text(UUIDText.lowercased(id))]).first.map(Self.decodeData)
        }
    }

    package func writeData(_ record: StoredDataRecord, replacing old: StoredDataRecord?) throws {
        try checkNextSeq(record.seq)
        precondition(inTransaction, "every write happens inside transaction(_:)")
        try faults?.check(.write)
        try Self.storage {
            _ = try connection.query("""
                INSERT INTO data_records (ledger, id, seq, kind, version, deleted, fields, field_versions)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                ON CONFLICT (ledger, id) DO UPDATE SET seq = excluded.seq, kind = excluded.kind,
                    version = excluded.version, deleted = excluded.deleted, fields = excluded.fields,
                    field_versions = excluded.field_versions
                """, [.integer(number), .text(UUIDText.lowercased(record.record.id)), .integer(record.seq),
                      .text(record.record.kind.rawValue), .integer(record.version), .bool(record.deleted),
                      .text(record.fieldsText), .text(record.fieldVersionsText)])
        }
        if readAhead.ids.contains(record.record.id) { readAhead.dataRecords[record.record.id] = record }
        head = record.seq
    }

    package func dataChanges(since: Int64, limit: Int) throws -> [DataRecord] {
        // Never past `head` as this store read it, like ``changes(since:limit:snapshot:maximumBytes:)``.
        try Self.storage {
            try connection.query("""
                SELECT \(Self.dataColumns) FROM data_records WHERE ledger = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4
                """, [.integer(number), .integer(since), .integer(head), .integer(Int64(limit))]).all.map { try Self.decodeData($0).record }
        }
    }

    static func decodeData(_ row: PostgresRow) throws -> StoredDataRecord {
        guard let id = UUIDText.parse(row.text(1)),
              let stored = StoredDataRecord(seq: row.int64(0), id: id, kind: row.text(2), version: row.int64(3), deleted: row.bool(4),
                                            fieldsText: row.text(5), fieldVersionsText: row.text(6)) else {
            throw LedgerError.storageFailed("data record at seq \(row.int64(0)) is unreadable in the database")
        }
        return stored
    }
}
