import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import SQLite

/// The SQLite store's side of `expensed migrate` (``LedgerSnapshot``): the whole file read in one read
/// transaction, and a new file written in one transaction with bulk statements.
extension SQLiteLedgerStore {
    /// Everything this ledger holds, read in one transaction.
    package func snapshot() throws -> LedgerSnapshot {
        try connection.transaction {
            let records = try connection.prepare("SELECT \(RecordColumns.list) FROM records ORDER BY seq")
                .map([]) { try StoredRecord(row: $0) }
            let data = try connection.prepare("""
                SELECT seq, id, kind, version, deleted, fields, field_versions FROM data_records ORDER BY seq
                """).map([]) { try Self.decodeData($0) }
            // The `history` rows and the creations records imply (migration 14), merged in seq order.
            let history = try self.history(HistoryRequest(kinds: Set(RecordKind.allCases)), limit: Int(Int64.max))
            var clients: [UUID: Int64] = [:]
            try connection.prepare("SELECT id, last_mutation_id FROM clients").forEach { clients[try Self.uuid($0.blob(0))] = $0.int64(1) }
            let outcomes = try keptOutcomes(clients: clients)
            var meta: [String: Int64] = [:]
            try connection.prepare("SELECT key, value FROM history_meta").forEach { meta[$0.text(0)] = $0.int64(1) }
            var snapshot = LedgerSnapshot(
                name: name, currency: currency, identity: identity, head: head, horizon: meta["horizon"] ?? 0,
                historyStartSeq: meta["start_seq"] ?? 0, historyStartTime: meta["start_time"] ?? 0, records: records,
                dataRecords: data, history: history, clients: clients, outcomes: outcomes,
                tokens: try Self.tokens(connection: connection), totals: try dayTotals.currencyTotals())
            snapshot.sort()
            return snapshot
        }
    }

    /// Writes `snapshot` into the new, empty ledger file at `path` (made by ``init(path:name:currency:token:verify:outcomeRetention:)``
    /// without a token), in one transaction: rows with their exact seqs, each history entry's `previous` link
    /// from the entries before it. The live totals are built from the records when the file is opened.
    package static func install(_ snapshot: LedgerSnapshot, intoNewFile path: String) throws {
        let store = try SQLiteLedgerStore(path: path, name: snapshot.name, currency: snapshot.currency)
        let connection = store.connection
        try connection.transaction {
            for (key, value) in [ledgerIdKey: UUIDText.lowercased(snapshot.identity.ledgerId),
                                 epochKey: UUIDText.lowercased(snapshot.identity.epoch),
                                 epochCursorKey: String(snapshot.identity.epochCursor)] {
                try connection.cached("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)").run([.text(key), .text(value)])
            }
            try store.rows.records.run(count: snapshot.records.count) { row, index in
                try snapshot.records[index].write(to: &row)
                // Every entry, creations included, is written below as a `history` row.
                try RecordCreation.write(nil, to: &row)
            }
            for stored in snapshot.dataRecords {
                try connection.cached("""
                    INSERT INTO data_records (seq, id, kind, version, deleted, fields, field_versions) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                    """).run([.integer(stored.seq), blob(stored.record.id), .text(stored.record.kind.rawValue),
                              .integer(stored.version), .integer(stored.deleted ? 1 : 0), .text(stored.fieldsText),
                              .text(stored.fieldVersionsText)])
            }
            var lastSeq: [UUID: Int64] = [:]
            for entry in snapshot.history {
                try connection.cached("""
                    INSERT INTO history (seq, id, previous, version, action, changes, who, client, time, kind)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                    """).run([
                    .integer(entry.seq), blob(entry.id), .integer(lastSeq[entry.id] ?? 0), .integer(entry.version),
                    .integer(Int64(historyActions.firstIndex(of: entry.action) ?? 0)),
                    .text(String(decoding: entry.changesJSON, as: UTF8.self)), entry.who.map { .text($0) } ?? .null,
                    blob(entry.clientId), .integer(entry.time), .integer(Int64(historyKinds.firstIndex(of: entry.kind) ?? 0)),
                ])
                lastSeq[entry.id] = entry.seq
            }
            for (key, value) in ["start_seq": snapshot.historyStartSeq, "start_time": snapshot.historyStartTime,
                                 "horizon": snapshot.horizon] {
                try connection.cached("INSERT OR REPLACE INTO history_meta (key, value) VALUES (?1, ?2)").run([.text(key), .integer(value)])
            }
            for (clientId, last) in snapshot.clients {
                try connection.cached("INSERT INTO clients (id, last_mutation_id) VALUES (?1, ?2)").run([blob(clientId), .integer(last)])
            }
            try appendRuns(snapshot.outcomes.filter { snapshot.clients[$0.clientId] != nil }, connection: connection)
            for token in snapshot.tokens { try insertToken(token, connection: connection) }
        }
    }
}
