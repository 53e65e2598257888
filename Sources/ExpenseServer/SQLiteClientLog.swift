import FoundationEssentials

/// What the SQLite store keeps of its clients, in one place: each client's committed `clients` row (its last
/// consumed mutationId, newest outcome run and open run), what the open transaction changes in them, the
/// transaction's new outcomes, the outcome log's position and the sweep's cursor. A transaction's values are taken in by
/// ``commit()`` once COMMIT succeeded and forgotten by ``rollBack()`` when it failed, so what is committed here
/// always equals the file.
///
/// A class, not a struct: a lookup of an outcome changes the runs while the closure it calls reads a client's row
/// and keeps its walk, and each of those is a property of its own here (as one struct they would be one access to
/// the store's property, overlapping itself).
final class SQLiteClientLog {
    /// One row of `clients`: a client's last consumed mutationId, its newest outcome run in `outcome_runs` (0: none)
    /// and its open run, the outcomes kept since, which the row itself holds (`SQLiteLedgerStore+Outcomes.swift`).
    struct Row {
        var lastMutationId: Int64 = 0
        var newestRun: Int64 = 0
        var open: OpenOutcomeRun?
    }

    /// Each client's `clients` row as committed, read through from the table (the store is the file's only writer,
    /// so the copy cannot go stale).
    var committed: [UUID: Row] = [:]
    /// The transaction's new last consumed mutationIds, written once per client when it commits (a client that
    /// pushes several times in one group commit costs one row write, not one per push).
    var pendingLastMutationIds: [UUID: Int64] = [:]
    /// The transaction's `clients` rows as written before COMMIT.
    var pendingRows: [(id: UUID, row: Row)] = []
    /// The transaction's newly consumed mutations' outcomes, one run per client, and the clients in the order they
    /// first kept one (the order their runs are appended: `SQLiteLedgerStore+Outcomes.swift`).
    /// Without the run-time exclusivity check, as the store's per-mutation state (`SQLiteLedgerStore.swift`): a
    /// lookup's closure reads the other properties, never this one.
    @exclusivity(unchecked) var runs = TransactionOutcomeRuns()
    /// How many outcomes were ever appended to `outcome_runs` (at least): a run's key is this count after its last
    /// outcome, so keys increase, are never reused, and tell the sweep which runs cannot have expired yet
    /// (`SQLiteLedgerStore+OutcomeSweep.swift`). Taken from the file at open.
    var position: Int64 = 0
    /// ``position`` after the transaction's runs.
    var pendingPosition: Int64 = 0
    /// The last run the sweep examined (0: start from the first), as committed, and the transaction's new one.
    var sweepCursor: Int64 = 0
    var pendingSweepCursor: Int64?
    /// The committed runs of the client whose outcome was last looked up (`SQLiteLedgerStore+Outcomes.swift`).
    var runWalk: OutcomeRunWalk?

    /// A transaction begins: nothing of an earlier one is pending.
    func begin() { forgetPending() }

    /// The transaction committed: its rows, position and cursor are what the file holds now.
    func commit() {
        for (clientId, row) in pendingRows { committed[clientId] = row }
        position = pendingPosition
        if let cursor = pendingSweepCursor { sweepCursor = cursor }
        forgetPending()
    }

    /// The transaction failed: the file holds what it held before, and so does this.
    func rollBack() { forgetPending() }

    private func forgetPending() {
        pendingLastMutationIds.removeAll(keepingCapacity: true)
        pendingRows.removeAll(keepingCapacity: true)
        runs.removeAll()
        pendingSweepCursor = nil
    }
}
