import ExpenseCore
import Foundation
import PostgreSQL

/// What a ``PostgresLedgerStore`` transaction read ahead (``LedgerStore/prefetch(clientIds:ids:)``): read under
/// the ledger row's lock, so valid until the transaction ends, and kept current by the transaction's own writes
/// (pending records come first; data records are updated as written). An id or client not covered is read
/// from the database as before.
struct PostgresReadAhead {
    /// Ids whose records were read ahead: absent from both maps means no record has that id.
    var ids: Set<UUID> = []
    var records: [UUID: StoredRecord] = [:]
    var dataRecords: [UUID: StoredDataRecord] = [:]
    /// Last consumed mutationId per client read ahead (0 for a client never seen).
    var lastMutationIds: [UUID: Int64] = [:]

    mutating func removeAll() {
        ids.removeAll(keepingCapacity: true)
        records.removeAll(keepingCapacity: true)
        dataRecords.removeAll(keepingCapacity: true)
        lastMutationIds.removeAll(keepingCapacity: true)
    }
}

extension PostgresLedgerStore {
    /// The three reads in one round trip (``PostgreSQL/PostgresConnection/pipeline(_:)``).
    package func prefetch(clientIds: [UUID], ids: [UUID]) throws {
        precondition(inTransaction, "read-ahead happens under the transaction's lock")
        let wanted = readAheadWanted(clientIds: clientIds, ids: ids)
        guard !wanted.clients.isEmpty || !wanted.ids.isEmpty else { return }
        let results = try Self.storage { try connection.pipeline(readAheadStatements(wanted)) }
        try takeReadAhead(results, wanted)
    }

    /// The clients and ids of a read-ahead not covered yet.
    func readAheadWanted(clientIds: [UUID], ids: [UUID]) -> (clients: [UUID], ids: [UUID]) {
        (Array(Set(clientIds).subtracting(readAhead.lastMutationIds.keys)), Array(Set(ids).subtracting(readAhead.ids)))
    }

    /// The three reads of a read-ahead: the clients' last mutationIds, the records, the data records.
    func readAheadStatements(_ wanted: (clients: [UUID], ids: [UUID])) -> [PostgresStatement] {
        var clients = PostgresBinaryArray(.uuid, capacity: wanted.clients.count)
        for client in wanted.clients { clients.append(client) }
        var ids = PostgresBinaryArray(.uuid, capacity: wanted.ids.count)
        for id in wanted.ids { ids.append(id) }
        return [
            PostgresStatement("SELECT id, last_mutation_id FROM clients WHERE ledger = $1 AND id = ANY($2::uuid[])",
                              [.integer(number), clients.value]),
            PostgresStatement("SELECT \(RecordColumns.list) FROM records WHERE ledger = $1 AND id = ANY($2::uuid[])",
                              [.integer(number), ids.value]),
            PostgresStatement("SELECT \(Self.dataColumns) FROM data_records WHERE ledger = $1 AND id = ANY($2::uuid[])",
                              [.integer(number), ids.value]),
        ]
    }

    /// Keeps the answers of ``readAheadStatements(_:)`` (`results`, in that order).
    func takeReadAhead(_ results: some Collection<PostgresResult>, _ wanted: (clients: [UUID], ids: [UUID])) throws {
        let results = Array(results)
        for client in wanted.clients { readAhead.lastMutationIds[client] = 0 }
        for row in results[0].all {
            guard let client = UUIDText.parse(row.text(0)) else { continue }
            readAhead.lastMutationIds[client] = row.int64(1)
        }
        for row in results[1].all {
            let stored = try StoredRecord(row: row)
            readAhead.records[stored.expense.id] = stored
        }
        for row in results[2].all {
            let stored = try Self.decodeData(row)
            readAhead.dataRecords[stored.record.id] = stored
        }
        readAhead.ids.formUnion(wanted.ids)
    }
}
