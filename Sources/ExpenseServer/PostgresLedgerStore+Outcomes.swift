import ExpenseCore
import ExpenseProtocol
import Foundation
import PostgreSQL

/// Kept outcomes (Protocol.md §7.6) of the PostgreSQL store as runs (`outcome_runs`, migration 4): a group commit
/// inserts one row per client that consumed mutations, keyed (ledger, client, first mutationId), holding that
/// client's outcomes of the group packed by ``PackedOutcomeRun`` (one byte per create) — not one row per outcome.
///
/// The window is applied when an outcome is read (``TransactionOutcomeRuns``). The rows of runs wholly outside their
/// client's window are deleted in the transaction that moves the client's ids on (one index range per client that
/// pushed), so a client keeps at most the runs that hold a mutationId of its window: never more rows than outcomes
/// kept. Like every read of a write transaction, runs are read under the ledger row's lock and decoded runs are
/// kept only until the transaction ends (docs/reliability.md §9b).
extension PostgresLedgerStore {
    package func keepOutcome(_ outcome: ConsumedOutcome, clientId: UUID, mutationId: Int64) throws {
        transactionRuns.keep(outcome, clientId: clientId, mutationId: mutationId)
    }

    package func outcome(clientId: UUID, mutationId: Int64) throws -> ConsumedOutcome? {
        let last = try lastMutationId(clientId: clientId)
        return try transactionRuns.outcome(clientId: clientId, mutationId: mutationId, last: last,
                                           retention: outcomeRetention, keepsRead: inTransaction) {
            try committedRun(clientId, holding: $0)
        }
    }

    /// The committed run of `clientId` holding `mutationId`: the one starting last at or before it, if it reaches it.
    private func committedRun(_ clientId: UUID, holding mutationId: Int64) throws -> PendingOutcomeRun? {
        if !inTransaction { try ensureConnected() }
        let row = try Self.storage {
            try connection.query("""
                SELECT first_mutation_id, last_mutation_id, encode(outcomes, 'hex') FROM outcome_runs
                WHERE ledger = $1 AND client = $2 AND first_mutation_id <= $3 ORDER BY first_mutation_id DESC LIMIT 1
                """, [.integer(number), .text(UUIDText.lowercased(clientId)), .integer(mutationId)]).first
        }
        guard let row, row.int64(1) >= mutationId else { return nil }
        return try Self.decodeRun(row, from: 0)
    }

    /// The run in columns `first_mutation_id, last_mutation_id, encode(outcomes, 'hex')` from `column` on.
    /// - Throws: ``LedgerError/storageFailed(_:)`` when it does not decode (changed behind the daemon's back).
    static func decodeRun(_ row: PostgresRow, from column: Int) throws -> PendingOutcomeRun {
        let first = row.int64(column), last = row.int64(column + 1)
        let (span, overflow) = last.subtractingReportingOverflow(first)
        guard !overflow, span >= 0, span < Int64(Int32.max), let bytes = row.hexBytes(column + 2) else {
            throw PackedOutcomeRun.damaged("the run of mutationIds \(first)…\(last) is not a run")
        }
        return PendingOutcomeRun(first: first, outcomes: try PackedOutcomeRun.decode(bytes, count: Int(span) + 1))
    }

    /// The statements that append the transaction's runs and delete, per client whose ids moved past its window,
    /// its runs wholly outside it: in the same transaction as the effects and the last consumed mutationIds.
    func outcomeStatements() -> [PostgresStatement] {
        var statements: [PostgresStatement] = []
        if !transactionRuns.pending.isEmpty {
            statements.append(Self.insertRunsStatement(transactionRuns.pending.clients.compactMap { clientId in
                transactionRuns.pending[clientId].map { (clientId, $0) }
            }, ledger: number))
        }
        let pruned = pendingLastMutationIds.filter { $0.value > outcomeRetention }
        guard !pruned.isEmpty else { return statements }
        var clients = PostgresBinaryArray(.uuid, capacity: pruned.count), below = PostgresBinaryArray(.int8, capacity: pruned.count)
        for (clientId, last) in pruned {
            clients.append(clientId)
            below.append(last - outcomeRetention)
        }
        statements.append(PostgresStatement("""
            DELETE FROM outcome_runs o USING unnest($2::uuid[], $3::bigint[]) AS p(client, below)
            WHERE o.ledger = $1 AND o.client = p.client AND o.first_mutation_id <= p.below AND o.last_mutation_id <= p.below
            """, [.integer(number), clients.value, below.value]))
        return statements
    }

    /// The statement inserting `runs` of `ledger`, each packed (``PackedOutcomeRun``).
    static func insertRunsStatement(_ runs: [(clientId: UUID, run: PendingOutcomeRun)], ledger: Int64) -> PostgresStatement {
        var clients = PostgresBinaryArray(.uuid, capacity: runs.count), firsts = PostgresBinaryArray(.int8, capacity: runs.count)
        var lasts = PostgresBinaryArray(.int8, capacity: runs.count), packed = PostgresBinaryArray(.bytea, capacity: runs.count)
        for (clientId, run) in runs {
            clients.append(clientId)
            firsts.append(run.first)
            lasts.append(run.last)
            packed.append(bytes: PackedOutcomeRun.encode(run.outcomes))
        }
        return PostgresStatement("""
            INSERT INTO outcome_runs (ledger, client, first_mutation_id, last_mutation_id, outcomes)
            SELECT $1, * FROM unnest($2::uuid[], $3::bigint[], $4::bigint[], $5::bytea[])
            """, [.integer(ledger), clients.value, firsts.value, lasts.value, packed.value])
    }

    /// Writes `kept` outcomes of `ledger` (``LedgerSnapshot/outcomes``' order) as runs of consecutive mutationIds.
    static func insertOutcomes(_ kept: [LedgerSnapshot.KeptOutcome], ledger: Int64, connection: PostgresConnection) throws {
        let runs = PendingOutcomeRun.runs(of: kept, maximumLength: SQLiteLedgerStore.copiedRunLength)
        guard !runs.isEmpty else { return }
        let statement = insertRunsStatement(runs, ledger: ledger)
        try connection.query(statement.sql, statement.parameters)
    }

    /// Every outcome of `ledger` inside its client's window (`clients`: each client's last consumed mutationId),
    /// one by one; the parts of runs outside it, which no lookup answers, are left out.
    static func keptOutcomes(ledger: Int64, clients: [UUID: Int64], retention: Int64,
                             connection: PostgresConnection) throws -> [LedgerSnapshot.KeptOutcome] {
        try connection.query("""
            SELECT client, first_mutation_id, last_mutation_id, encode(outcomes, 'hex') FROM outcome_runs WHERE ledger = $1
            """, [.integer(ledger)]).all.flatMap { row in
            guard let clientId = UUIDText.parse(row.text(0)) else {
                throw LedgerError.storageFailed("an outcome run's client id does not parse")
            }
            return try decodeRun(row, from: 1).kept(clientId: clientId, last: clients[clientId] ?? 0, retention: retention)
        }
    }

    /// Outcomes kept for `clientId`: those inside its window (tests of the retention window).
    package func keptOutcomeCount(clientId: UUID) throws -> Int {
        let last = try lastMutationId(clientId: clientId)
        let rows = try Self.storage {
            try connection.query("""
                SELECT first_mutation_id, last_mutation_id FROM outcome_runs
                WHERE ledger = $1 AND client = $2 AND last_mutation_id > $3
                """, [.integer(number), .text(UUIDText.lowercased(clientId)), .integer(last - outcomeRetention)]).all
        }
        return rows.reduce(0) { count, row in
            count + Int(ConsumedOutcome.keptCount(from: row.int64(0), through: row.int64(1), last: last, retention: outcomeRetention))
        }
    }

    /// Outcome rows of `ledger` (tests of the storage bound).
    package func outcomeRunCount() throws -> Int {
        Int(try Self.storage {
            try connection.query("SELECT count(*) FROM outcome_runs WHERE ledger = $1", [.integer(number)]).first?.int64(0) ?? 0
        })
    }
}
