import ExpenseCore
import ExpenseProtocol
import Foundation
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
    /// `history`: one entry per change (Protocol.md §5.8); a record's creation in `historyCreations`, its
    /// constant columns written as constants (previous 0, version 1, action `create`, kind `expense`).
    let history: SQLiteRowStatement
    let historyCreations: SQLiteRowStatement
    /// `clients`: each pushing client's last consumed mutationId and newest outcome run.
    let clients: SQLiteRowStatement
    /// `records`: the group's new record versions, and the seqs of the versions they replace; a new record's in
    /// `recordCreations`, its constant columns written as constants (version 1, live, every field at version 1).
    let records: SQLiteRowStatement
    let recordCreations: SQLiteRowStatement
    let recordDeletes: SQLiteRowStatement

    private let connection: SQLiteConnection
    private var readsRecordBySeq: SQLiteStatement?

    /// `records`' row of a seq, every column but the id (``RecordColumns/listWithoutId``): read once per change
    /// of a known record, so prepared once and held here rather than found by its text.
    func recordBySeq() throws -> SQLiteStatement {
        if let statement = readsRecordBySeq { return statement }
        let statement = try connection.prepare("SELECT \(RecordColumns.listWithoutId) FROM records WHERE seq = ?1")
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
        precondition(SQLiteLedgerStore.historyActions.firstIndex(of: .create) == 0
                     && SQLiteLedgerStore.historyKinds.firstIndex(of: .expense) == 0, "the constants below")
        historyCreations = SQLiteRowStatement(connection: connection, head: historyHead, row: "(?, ?, 0, 1, 0, ?, ?, ?, ?, 0)")
        clients = SQLiteRowStatement(
            connection: connection, head: "INSERT INTO clients (id, last_mutation_id, newest_run)", columns: 3,
            tail: "ON CONFLICT (id) DO UPDATE SET last_mutation_id = excluded.last_mutation_id, newest_run = excluded.newest_run")
        let recordsHead = "INSERT INTO records (\(RecordColumns.list))"
        records = SQLiteRowStatement(connection: connection, head: recordsHead, columns: RecordColumns.names.count)
        recordCreations = SQLiteRowStatement(connection: connection, head: recordsHead, row: RecordColumns.creationRow)
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
/// A `records` row written straight into a pull page (``ExpenseProtocol/ExpenseFields/writeRecordObject(to:row:first:deleted:id:seq:version:)``).
extension SQLiteRow: RecordValueRow {
    package func day(_ column: Int32) -> CalendarDay? { CalendarDay(ordinal: int(column)) }
}
