import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import SQLite

/// The multi-row statements a group commit writes its rows with: one per table, each prepared on first use, so a
/// group of n changes steps about log₂ n statements per table instead of n (``SQLite/SQLiteRowStatement``).
///
/// The rows of a group are collected in memory while its pushes are decided and written just before COMMIT, in
/// the same transaction (``SQLiteLedgerStore/transaction(_:)``): nothing about what is durable, or when,
/// changes; only the number of statements does.
final class SQLiteLedgerRows {
    /// `outcome_runs`: one run per client that consumed mutations (Protocol.md §7.6), and the sweep's deletes.
    let outcomeRuns: SQLiteRowStatement
    let outcomeRunDeletes: SQLiteRowStatement
    /// `history`: one entry per change (Protocol.md §5.8) but an expense's creation, which its record's row
    /// implies (``RecordCreation``).
    let history: SQLiteRowStatement
    /// `clients`: each pushing client's last consumed mutationId, newest outcome run and open run.
    let clients: SQLiteRowStatement
    /// `records`: the group's new record versions with their creations (``RecordCreation``), and the seqs of the
    /// versions they replace; a new record's in `recordCreations`, its constant columns written as constants
    /// (version 1, live, every field at version 1).
    let records: SQLiteRowStatement
    let recordCreations: SQLiteRowStatement
    let recordDeletes: SQLiteRowStatement

    private let connection: SQLiteConnection
    private var readsRecordBySeq: SQLiteStatement?

    /// `records`' row of a seq, every column but the id (``RecordColumns/listWithoutId``), then its creation:
    /// read once per change of a known record, so prepared once and held here rather than found by its text.
    func recordBySeq() throws -> SQLiteStatement {
        if let statement = readsRecordBySeq { return statement }
        let statement = try connection.prepare(
            "SELECT \(RecordColumns.listWithoutId), \(RecordCreation.list) FROM records WHERE seq = ?1")
        readsRecordBySeq = statement
        return statement
    }

    init(connection: SQLiteConnection) {
        self.connection = connection
        outcomeRuns = SQLiteRowStatement(
            connection: connection,
            head: "INSERT INTO outcome_runs (run, client, first_mutation_id, last_mutation_id, previous, outcomes)", columns: 6)
        outcomeRunDeletes = SQLiteRowStatement(connection: connection, head: "DELETE FROM outcome_runs WHERE run IN (",
                                               columns: 1, tail: ")")
        let historyHead = "INSERT INTO history (seq, id, previous, version, action, changes, who, client, time, kind)"
        history = SQLiteRowStatement(connection: connection, head: historyHead, columns: 10)
        clients = SQLiteRowStatement(
            connection: connection,
            head: "INSERT INTO clients (id, last_mutation_id, newest_run, open_first, open_last, open_outcomes)", columns: 6,
            tail: """
                ON CONFLICT (id) DO UPDATE SET last_mutation_id = excluded.last_mutation_id, newest_run = excluded.newest_run,
                open_first = excluded.open_first, open_last = excluded.open_last, open_outcomes = excluded.open_outcomes
                """)
        let recordsHead = "INSERT INTO records (\(SQLiteLedgerStore.recordWithCreation))"
        records = SQLiteRowStatement(connection: connection, head: recordsHead,
                                     columns: RecordColumns.names.count + RecordCreation.columns.count)
        recordCreations = SQLiteRowStatement(
            connection: connection, head: recordsHead,
            row: RecordColumns.creationRow.dropLast() + String(repeating: ", ?", count: RecordCreation.columns.count) + ")")
        recordDeletes = SQLiteRowStatement(connection: connection, head: "DELETE FROM records WHERE seq IN (", columns: 1,
                                           tail: ")")
    }
}

extension SQLiteLedgerStore {
    /// Forgets the history rows and record versions a transaction collected: after it wrote them and committed, or
    /// when it failed (the clients' rows and outcome runs are ``SQLiteClientLog``'s).
    func clearPendingRows() {
        pendingHistory.removeAll(keepingCapacity: true)
        pendingVersions.reset(firstSeq: pendingVersions.firstSeq)
    }
}

/// A `records` row read from SQLite: the id is its 16 bytes (``ExpenseCore/UUIDBlob``), a flag 0 or 1.
extension SQLiteRow: RecordColumnReader {
    func id(_ column: Int32) -> UUID? { withBlob(column) { SQLiteLedgerStore.uuid(raw: $0) } }
    func flag(_ column: Int32) -> Bool { int64(column) != 0 }
}

/// A `records` row bound for SQLite, as ``SQLiteRow``'s conformance reads it.
extension SQLiteRowBinder: RecordColumnWriter {
    mutating func id(_ value: UUID) throws { try SQLiteLedgerStore.bind(value, to: &self) }
    mutating func flag(_ value: Bool) throws { try integer(value ? 1 : 0) }
}
