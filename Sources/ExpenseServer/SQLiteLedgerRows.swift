import SQLite

/// The multi-row statements a group commit writes its rows with (docs/benchmarks.md, "Round 5, push rows"): one
/// per table, each prepared on first use, so a group of n changes steps about log₂ n statements per table
/// instead of n (``SQLite/SQLiteRowStatement``).
///
/// The rows of a group are collected in memory while its pushes are decided and written just before COMMIT, in
/// the same transaction (``SQLiteLedgerStore/transaction(_:)``): nothing about what is durable, or when,
/// changes; only the number of statements does.
final class SQLiteLedgerRows {
    /// `outcome_runs`: one run per client that consumed mutations (Protocol.md §7.6), and the sweep's deletes.
    let outcomeRuns: SQLiteRowStatement
    let outcomeRunDeletes: SQLiteRowStatement
    /// `history`: one entry per change (Protocol.md §5.8).
    let history: SQLiteRowStatement
    /// `clients`: each pushing client's last consumed mutationId and newest outcome run.
    let clients: SQLiteRowStatement
    /// `records`: the group's new record versions, and the seqs of the versions they replace.
    let records: SQLiteRowStatement
    let recordDeletes: SQLiteRowStatement

    init(connection: SQLiteConnection) {
        outcomeRuns = SQLiteRowStatement(
            connection: connection,
            head: "INSERT INTO outcome_runs (run, client, first_mutation_id, last_mutation_id, previous, outcomes)", columns: 6)
        outcomeRunDeletes = SQLiteRowStatement(connection: connection, head: "DELETE FROM outcome_runs WHERE run IN (",
                                               columns: 1, tail: ")")
        history = SQLiteRowStatement(
            connection: connection,
            head: "INSERT INTO history (seq, id, previous, version, action, changes, who, client, time, kind)", columns: 10)
        clients = SQLiteRowStatement(
            connection: connection, head: "INSERT INTO clients (id, last_mutation_id, newest_run)", columns: 3,
            tail: "ON CONFLICT (id) DO UPDATE SET last_mutation_id = excluded.last_mutation_id, newest_run = excluded.newest_run")
        records = SQLiteRowStatement(
            connection: connection,
            head: """
                INSERT INTO records (seq, id, version, deleted, amount, currency, category, day, note,
                    money_version, category_version, date_version, note_version)
                """,
            columns: 13)
        recordDeletes = SQLiteRowStatement(connection: connection, head: "DELETE FROM records WHERE seq IN (", columns: 1,
                                           tail: ")")
    }
}

extension SQLiteLedgerStore {
    /// Forgets the rows a transaction collected: after it wrote them and committed, or when it failed.
    func clearPendingRows() {
        pendingRuns.removeAll(keepingCapacity: true)
        lastRun = nil
        pendingRunClients.removeAll(keepingCapacity: true)
        pendingClientRows.removeAll(keepingCapacity: true)
        pendingSweepCursor = nil
        pendingHistory.removeAll(keepingCapacity: true)
        pendingVersions.reset(firstSeq: pendingVersions.firstSeq)
    }
}
