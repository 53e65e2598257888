import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import PostgreSQL

/// Kept outcomes (Protocol.md §7.6) of the PostgreSQL store as runs (`outcome_runs`, migration 4), keyed (ledger,
/// client, first mutationId), each holding one client's outcomes of consecutive mutationIds packed by
/// ``PackedOutcomeRun`` (one byte per create) — not one row per outcome — and an open run per client (migration 11):
/// a group commit adds each client's outcomes of the group to the open run its `clients` row holds, written anyway
/// for its last mutationId, and inserts that run into `outcome_runs` only once it would hold more than a few dozen
/// (``OpenOutcomeRun/committing(_:after:)``, the SQLite store's rule). A single push so inserts no run row of its own.
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

    /// The committed run of `clientId` holding `mutationId`: its open run when that holds it, else the run of
    /// `outcome_runs` starting last at or before it, if it reaches it. The open run comes from the read-ahead when
    /// the client was read ahead (under the ledger row's lock, so current until the transaction ends); otherwise
    /// from the row itself, in the same statement as the logged run: outside a transaction, fresh at every lookup,
    /// as another daemon may have moved it on since.
    private func committedRun(_ clientId: UUID, holding mutationId: Int64) throws -> PendingOutcomeRun? {
        if !inTransaction { try ensureConnected() }
        let logged = """
            SELECT first_mutation_id, last_mutation_id, encode(outcomes, 'hex') FROM outcome_runs
            WHERE ledger = $1 AND client = $2 AND first_mutation_id <= $3 ORDER BY first_mutation_id DESC LIMIT 1
            """
        let sql: String
        if inTransaction, readAhead.lastMutationIds[clientId] != nil {
            if let open = readAhead.openRuns[clientId]?.run, open.outcome(mutationId) != nil { return open }
            sql = logged
        } else {
            sql = """
                SELECT open_first, open_last, encode(open_outcomes, 'hex') FROM clients
                WHERE ledger = $1 AND id = $2 AND open_outcomes IS NOT NULL AND open_first <= $3 AND open_last >= $3
                UNION ALL (\(logged))
                """
        }
        let rows = try Self.storage {
            try connection.query(sql, [.integer(number), .text(UUIDText.lowercased(clientId)), .integer(mutationId)]).all
        }
        guard let row = rows.first(where: { $0.int64(0) <= mutationId && $0.int64(1) >= mutationId }) else { return nil }
        return try Self.decodeRun(row, from: 0)
    }

    /// The run in columns `first_mutation_id, last_mutation_id, encode(outcomes, 'hex')` from `column` on.
    /// - Throws: ``LedgerError/storageFailed(_:)`` when it does not decode (changed behind the daemon's back).
    static func decodeRun(_ row: PostgresRow, from column: Int) throws -> PendingOutcomeRun {
        try decodePacked(row, from: column).run
    }

    /// The open run in columns `open_first, open_last, encode(open_outcomes, 'hex')` of a `clients` row from
    /// `column` on; `nil` when the row holds none (`open_outcomes` NULL).
    /// - Throws: ``LedgerError/storageFailed(_:)`` when it does not decode.
    static func decodeOpenRun(_ row: PostgresRow, from column: Int) throws -> OpenOutcomeRun? {
        guard row.optionalText(column + 2) != nil else { return nil }
        return try decodePacked(row, from: column)
    }

    /// A run and its packed bytes from columns first, last and the hex of the bytes, from `column` on.
    private static func decodePacked(_ row: PostgresRow, from column: Int) throws -> OpenOutcomeRun {
        let first = row.int64(column), last = row.int64(column + 1)
        let (span, overflow) = last.subtractingReportingOverflow(first)
        guard !overflow, span >= 0, span < Int64(Int32.max), let bytes = row.hexBytes(column + 2) else {
            throw PackedOutcomeRun.damaged("the run of mutationIds \(first)…\(last) is not a run")
        }
        let outcomes = try PackedOutcomeRun.decode(bytes, count: Int(span) + 1)
        return OpenOutcomeRun(run: PendingOutcomeRun(first: first, outcomes: outcomes), bytes: bytes)
    }

    /// The statements that write what the transaction changed of its clients, in the same transaction as the
    /// effects they account for: the runs it appends to `outcome_runs` (``OpenOutcomeRun/committing(_:after:)``
    /// of each client's kept outcomes and committed open run), one `clients` row per client that consumed
    /// mutations or kept outcomes (its last consumed mutationId and open run; a client that kept none keeps its
    /// open run), and, per client whose ids moved past its window, the deletion of its runs wholly outside it
    /// (an open run is never in `outcome_runs`). The committed rows come from the read-ahead; the clients it did
    /// not cover are read here, in a round trip of their own (only transactions without one).
    func clientStatements() throws -> [PostgresStatement] {
        let written = Array(pendingLastMutationIds.keys)
            + transactionRuns.pending.clients.filter { pendingLastMutationIds[$0] == nil }
        guard !written.isEmpty else { return [] }
        let unread = written.filter { readAhead.lastMutationIds[$0] == nil }
        if !unread.isEmpty { try readClientRows(unread) }
        var appended: [(clientId: UUID, run: OpenOutcomeRun)] = []
        var clients = PostgresBinaryArray(.uuid, capacity: written.count), lasts = PostgresBinaryArray(.int8, capacity: written.count)
        var firsts = PostgresBinaryArray(.int8, capacity: written.count), openLasts = PostgresBinaryArray(.int8, capacity: written.count)
        var packed = PostgresBinaryArray(.bytea, capacity: written.count)
        for clientId in written {
            var open = readAhead.openRuns[clientId]
            if let kept = transactionRuns.pending[clientId] {
                let next = OpenOutcomeRun.committing(kept, after: open)
                appended += next.appended.map { (clientId, $0) }
                open = next.open
            }
            clients.append(clientId)
            lasts.append(pendingLastMutationIds[clientId] ?? readAhead.lastMutationIds[clientId] ?? 0)
            firsts.append(open?.run.first ?? 0)
            openLasts.append(open?.run.last ?? 0)
            if let open { packed.append(bytes: open.bytes) } else { packed.appendNull() }
        }
        var statements: [PostgresStatement] = []
        if !appended.isEmpty { statements.append(Self.insertRunsStatement(appended, ledger: number)) }
        statements.append(PostgresStatement("""
            INSERT INTO clients (ledger, id, last_mutation_id, open_first, open_last, open_outcomes)
            SELECT $1, * FROM unnest($2::uuid[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bytea[])
            ON CONFLICT (ledger, id) DO UPDATE SET last_mutation_id = excluded.last_mutation_id,
                open_first = excluded.open_first, open_last = excluded.open_last, open_outcomes = excluded.open_outcomes
            """, [.integer(number), clients.value, lasts.value, firsts.value, openLasts.value, packed.value]))
        let pruned = pendingLastMutationIds.filter { $0.value > outcomeRetention }
        guard !pruned.isEmpty else { return statements }
        var prunedClients = PostgresBinaryArray(.uuid, capacity: pruned.count), below = PostgresBinaryArray(.int8, capacity: pruned.count)
        for (clientId, last) in pruned {
            prunedClients.append(clientId)
            below.append(last - outcomeRetention)
        }
        statements.append(PostgresStatement("""
            DELETE FROM outcome_runs o USING unnest($2::uuid[], $3::bigint[]) AS p(client, below)
            WHERE o.ledger = $1 AND o.client = p.client AND o.first_mutation_id <= p.below AND o.last_mutation_id <= p.below
            """, [.integer(number), prunedClients.value, below.value]))
        return statements
    }

    /// The statement inserting `runs` of `ledger`, each packed (``PackedOutcomeRun``).
    static func insertRunsStatement(_ runs: [(clientId: UUID, run: PendingOutcomeRun)], ledger: Int64) -> PostgresStatement {
        insertRunsStatement(runs.map { ($0.clientId, OpenOutcomeRun(run: $0.run, bytes: PackedOutcomeRun.encode($0.run.outcomes))) },
                            ledger: ledger)
    }

    /// The statement inserting `runs` of `ledger`, packed already.
    static func insertRunsStatement(_ runs: [(clientId: UUID, run: OpenOutcomeRun)], ledger: Int64) -> PostgresStatement {
        var clients = PostgresBinaryArray(.uuid, capacity: runs.count), firsts = PostgresBinaryArray(.int8, capacity: runs.count)
        var lasts = PostgresBinaryArray(.int8, capacity: runs.count), packed = PostgresBinaryArray(.bytea, capacity: runs.count)
        for (clientId, packedRun) in runs {
            clients.append(clientId)
            firsts.append(packedRun.run.first)
            lasts.append(packedRun.run.last)
            packed.append(bytes: packedRun.bytes)
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
    /// one by one, from the runs of `outcome_runs` and the clients' open runs; the parts of runs outside it, which
    /// no lookup answers, are left out.
    static func keptOutcomes(ledger: Int64, clients: [UUID: Int64], retention: Int64,
                             connection: PostgresConnection) throws -> [LedgerSnapshot.KeptOutcome] {
        try connection.query("""
            SELECT client, first_mutation_id, last_mutation_id, encode(outcomes, 'hex') FROM outcome_runs WHERE ledger = $1
            UNION ALL SELECT id, open_first, open_last, encode(open_outcomes, 'hex') FROM clients
            WHERE ledger = $1 AND open_outcomes IS NOT NULL
            """, [.integer(ledger)]).all.flatMap { row in
            guard let clientId = UUIDText.parse(row.text(0)) else {
                throw LedgerError.storageFailed("an outcome run's client id does not parse")
            }
            return try decodeRun(row, from: 1).kept(clientId: clientId, last: clients[clientId] ?? 0, retention: retention)
        }
    }

    /// Outcomes kept for `clientId`: those inside its window, in its open run and its runs of `outcome_runs`
    /// (tests of the retention window).
    package func keptOutcomeCount(clientId: UUID) throws -> Int {
        let last = try lastMutationId(clientId: clientId)
        let rows = try Self.storage {
            try connection.query("""
                SELECT open_first, open_last FROM clients
                WHERE ledger = $1 AND id = $2 AND open_outcomes IS NOT NULL AND open_last > $3
                UNION ALL SELECT first_mutation_id, last_mutation_id FROM outcome_runs
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
