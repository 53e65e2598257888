import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import PostgreSQL

/// Migration 4's conversion (``PostgresLedgerStore/migrations``): the kept outcomes of migration 0's `outcomes`
/// table, one row per outcome, become runs of `outcome_runs` (``PostgresLedgerStore+Outcomes.swift``), packed by
/// the store's own codec, in the migration's transaction.
extension PostgresLedgerStore {
    /// Rows converted per statement, so no statement's parameters grow with the whole table.
    static let convertedRunsPerStatement = 4_096

    /// Every row of `outcomes`, per ledger (now its number) and client, becomes part of a run of that client's
    /// consecutive mutationIds (at most ``SQLiteLedgerStore/copiedRunLength`` long, as a migration of the SQLite
    /// store makes them); then `outcomes` is dropped. Rows of a ledger that no longer exists are left out.
    static func convertOutcomeRows(_ connection: PostgresConnection) throws {
        let rows = try connection.query("""
            SELECT l.number, o.client, o.mutation_id, o.status, o.version, o.seq, o.record, o.reason, o.field, o.message
            FROM outcomes o JOIN ledgers l ON l.name = o.ledger ORDER BY l.number, o.client, o.mutation_id
            """).all
        var byLedger: [(ledger: Int64, kept: [LedgerSnapshot.KeptOutcome])] = []
        for row in rows {
            guard let clientId = UUIDText.parse(row.text(1)) else {
                throw LedgerError.storageFailed("an outcome's client id does not parse")
            }
            let kept = LedgerSnapshot.KeptOutcome(clientId: clientId, mutationId: row.int64(2),
                                                  outcome: try decodeOutcomeRow(row, from: 3))
            if byLedger.last?.ledger == row.int64(0) {
                byLedger[byLedger.count - 1].kept.append(kept)
            } else {
                byLedger.append((row.int64(0), [kept]))
            }
        }
        for (ledger, kept) in byLedger {
            let runs = PendingOutcomeRun.runs(of: kept, maximumLength: SQLiteLedgerStore.copiedRunLength)
            for start in stride(from: 0, to: runs.count, by: convertedRunsPerStatement) {
                let statement = insertRunsStatement(Array(runs[start..<min(start + convertedRunsPerStatement, runs.count)]),
                                                    ledger: ledger)
                try connection.query(statement.sql, statement.parameters)
            }
        }
        try connection.execute("DROP TABLE outcomes")
    }

    /// An outcome of the old `outcomes` table in columns `status, version, seq, record, reason, field, message`
    /// from `column` on.
    static func decodeOutcomeRow(_ row: PostgresRow, from column: Int) throws -> ConsumedOutcome {
        let c = column
        switch row.int64(c) {
        case 0: return .applied(version: row.int64(c + 1), seq: row.int64(c + 2))
        case 1:
            guard let id = UUIDText.parse(row.text(c + 3)) else { throw LedgerError.storageFailed("a kept conflict has no record id") }
            return .conflict(id: id)
        default: return .rejected(MutationRejection(reason: row.text(c + 4), field: row.optionalText(c + 5), message: row.text(c + 6)))
        }
    }
}
