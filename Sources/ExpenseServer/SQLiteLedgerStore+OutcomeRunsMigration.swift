import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import SQLite

/// Kept outcomes one by one, in and out of `outcome_runs`: migration 7's conversion of the old `outcomes` rows,
/// and ``SQLiteLedgerStore/snapshot()`` / ``SQLiteLedgerStore/install(_:intoNewFile:)`` (``LedgerSnapshot/outcomes``
/// lists them per mutation, as the PostgreSQL store keeps them).
extension SQLiteLedgerStore {
    /// Outcomes per run at most when runs are made from single outcomes (a migration, an install), so that a
    /// lookup decodes a bounded run.
    static let copiedRunLength = 512

    /// Migration 7's Swift step, in its transaction: every row of `outcomes` (migration 2) becomes part of a run
    /// of its client's consecutive mutationIds, linked and named by `clients.newest_run` as the store appends
    /// them, and `outcomes` is dropped. Rows of a client without a `clients` row (which the store never wrote:
    /// nothing could ask for them) are left out.
    static func convertOutcomeRows(_ connection: SQLiteConnection) throws {
        let kept = try connection.prepare("""
            SELECT client, mutation_id, status, version, seq, record, reason, field, message FROM outcomes
            WHERE client IN (SELECT id FROM clients) ORDER BY client, mutation_id
            """).map([]) { row in
            LedgerSnapshot.KeptOutcome(clientId: try uuid(row.blob(0)), mutationId: row.int64(1),
                                       outcome: try decodeOutcome(row, from: 2))
        }
        try appendRuns(kept, connection: connection)
        try connection.execute("DROP TABLE outcomes")
    }

    /// Appends `kept` (grouped by client, each client's in mutationId order) as runs of consecutive mutationIds,
    /// keyed as the store keys them (the count of outcomes appended through the run's last) and each linked to
    /// the client's run before, and sets each client's `clients.newest_run`; the `clients` rows must exist.
    /// Inside the caller's transaction.
    static func appendRuns(_ kept: [LedgerSnapshot.KeptOutcome], connection: SQLiteConnection) throws {
        var position = try lastOutcomePosition(connection)
        var newest: [UUID: Int64] = [:]
        for (clientId, run) in PendingOutcomeRun.runs(of: kept, maximumLength: copiedRunLength) {
            position += Int64(run.outcomes.count)
            try connection.cached("""
                INSERT INTO outcome_runs (run, client, first_mutation_id, last_mutation_id, previous, outcomes)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                """).run([.integer(position), blob(clientId), .integer(run.first), .integer(run.last),
                          .integer(newest[clientId] ?? 0), .blob(PackedOutcomeRun.encode(run.outcomes))])
            newest[clientId] = position
        }
        for (clientId, run) in newest {
            try connection.cached("UPDATE clients SET newest_run = ?2 WHERE id = ?1").run([blob(clientId), .integer(run)])
        }
    }

    /// Every outcome inside its client's window (``LedgerStore/outcomeRetention``), one by one, from the runs of
    /// `outcome_runs` and the clients' open runs; runs the sweep has not reached yet may still hold outcomes outside
    /// it, which no lookup answers and which are left out.
    /// - Parameter clients: each client's last consumed mutationId.
    func keptOutcomes(clients: [UUID: Int64]) throws -> [LedgerSnapshot.KeptOutcome] {
        var kept: [LedgerSnapshot.KeptOutcome] = []
        try connection.prepare("SELECT run, client, first_mutation_id, last_mutation_id, previous, outcomes FROM outcome_runs ORDER BY run")
            .forEach { row in
                let clientId = try Self.uuid(row.blob(1)), last = clients[clientId] ?? 0
                let header = OutcomeRunWalk.Header(run: row.int64(0), first: row.int64(2), last: row.int64(3), previous: row.int64(4))
                guard header.last > last - outcomeRetention else { return }
                let outcomes = try row.withBlob(5) { try PackedOutcomeRun.decode($0, count: try header.count()) }
                kept += PendingOutcomeRun(first: header.first, outcomes: outcomes)
                    .kept(clientId: clientId, last: last, retention: outcomeRetention)
            }
        try connection.prepare("SELECT id, open_first, open_last, open_outcomes FROM clients WHERE open_outcomes IS NOT NULL")
            .forEach { row in
                let clientId = try Self.uuid(row.blob(0))
                guard let open = try Self.openRun(row, from: 1) else { return }
                kept += open.run.kept(clientId: clientId, last: clients[clientId] ?? 0, retention: outcomeRetention)
            }
        return kept
    }

    /// An outcome of the old `outcomes` table in columns `status, version, seq, record, reason, field, message`
    /// from `column` on.
    static func decodeOutcome(_ row: SQLiteRow, from column: Int32) throws -> ConsumedOutcome {
        let c = column
        switch row.int64(c) {
        case 0: return .applied(version: row.int64(c + 1), seq: row.int64(c + 2))
        case 1: return .conflict(id: try uuid(row.blob(c + 3)))
        default: return .rejected(MutationRejection(reason: row.text(c + 4), field: row.optionalText(c + 5),
                                                    message: row.text(c + 6)))
        }
    }
}
