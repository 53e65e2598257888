import ExpenseCore
import FoundationEssentials
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
    /// The open run (``OpenOutcomeRun``) of each client read ahead that has one: a client of ``lastMutationIds``
    /// absent here holds none.
    var openRuns: [UUID: OpenOutcomeRun] = [:]

    mutating func removeAll() {
        ids.removeAll(keepingCapacity: true)
        records.removeAll(keepingCapacity: true)
        dataRecords.removeAll(keepingCapacity: true)
        lastMutationIds.removeAll(keepingCapacity: true)
        openRuns.removeAll(keepingCapacity: true)
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

    /// The three reads of a read-ahead: the clients' last mutationIds and open runs, the records, the data records.
    func readAheadStatements(_ wanted: (clients: [UUID], ids: [UUID])) -> [PostgresStatement] {
        var clients = PostgresBinaryArray(.uuid, capacity: wanted.clients.count)
        for client in wanted.clients { clients.append(client) }
        var ids = PostgresBinaryArray(.uuid, capacity: wanted.ids.count)
        for id in wanted.ids { ids.append(id) }
        return [
            Self.clientRowsStatement(clients, ledger: number),
            PostgresStatement("SELECT \(RecordColumns.list) FROM records WHERE ledger = $1 AND id = ANY($2::uuid[])",
                              [.integer(number), ids.value]),
            PostgresStatement("SELECT \(Self.dataColumns) FROM data_records WHERE ledger = $1 AND id = ANY($2::uuid[])",
                              [.integer(number), ids.value]),
        ]
    }

    /// Keeps the answers of ``readAheadStatements(_:)`` (`results`, in that order).
    func takeReadAhead(_ results: some Collection<PostgresResult>, _ wanted: (clients: [UUID], ids: [UUID])) throws {
        let results = Array(results)
        try takeClientRows(results[0], wanted.clients)
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

    /// The statement reading the `clients` rows of `clients` (a `uuid[]`) of `ledger`: id, last mutationId, open run.
    static func clientRowsStatement(_ clients: PostgresBinaryArray, ledger: Int64) -> PostgresStatement {
        PostgresStatement("""
            SELECT id, last_mutation_id, open_first, open_last, encode(open_outcomes, 'hex') FROM clients
            WHERE ledger = $1 AND id = ANY($2::uuid[])
            """, [.integer(ledger), clients.value])
    }

    /// Keeps the rows of ``clientRowsStatement(_:ledger:)`` for `clients` (those it found none for: 0, no open run).
    /// - Throws: ``LedgerError/storageFailed(_:)`` when an open run does not decode.
    func takeClientRows(_ result: PostgresResult, _ clients: [UUID]) throws {
        for client in clients { readAhead.lastMutationIds[client] = 0 }
        for row in result.all {
            guard let client = UUIDText.parse(row.text(0)) else { continue }
            readAhead.lastMutationIds[client] = row.int64(1)
            readAhead.openRuns[client] = try Self.decodeOpenRun(row, from: 2)
        }
    }

    /// Reads the `clients` rows of `clients` under the transaction's lock, as a read-ahead would have: for a
    /// commit whose clients were not read ahead (a transaction without ``prefetch(clientIds:ids:)``).
    func readClientRows(_ clients: [UUID]) throws {
        var ids = PostgresBinaryArray(.uuid, capacity: clients.count)
        for client in clients { ids.append(client) }
        let statement = Self.clientRowsStatement(ids, ledger: number)
        try takeClientRows(try Self.storage { try connection.query(statement.sql, statement.parameters) }, clients)
    }
}
