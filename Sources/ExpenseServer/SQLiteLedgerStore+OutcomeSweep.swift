import ExpenseCore
import FoundationEssentials
import SQLite

/// The sweep that bounds what `outcome_runs` stores (docs/reliability.md, "A lost answer is learned, not guessed").
///
/// The rule: a run whose last mutationId is at or below its client's `lastMutationId - outcomeRetention` is
/// outside the window for good (a client's ids only move on) and is deleted. Finding such runs by client would
/// need an index on `client`, which would dirty a page per pushing client per group again; instead a cursor goes
/// round the table in key order, each group that appends `a` runs examining the next `max(2a, 16)` after it and
/// deleting the expired ones, in the group's transaction.
///
/// Mostly runs that may have expired are examined. A run's key is the number of outcomes ever appended through
/// its last one (``SQLiteClientLog/position``), and its client must keep `outcomeRetention` more outcomes before
/// the run leaves the window; all but the few its open run holds (``OpenOutcomeRun/maximumCount``) are appended
/// after it, at higher positions. So runs keyed above `clientLog.position - outcomeRetention` have not expired,
/// or only just: the cursor goes up to there and then starts again from the first run, and such a run is found
/// on a later trip. (A daemon that has appended fewer outcomes than one window never sweeps.)
///
/// Why that bounds the table: the cursor covers the table faster than groups grow it (two runs examined per run
/// appended), so a run is deleted within about one trip of the cursor after it expires. Inside its window a
/// client has at most `outcomeRetention` runs (each holds at least one of its mutationIds); expired runs wait at
/// most one trip, which the appends during a trip bound. `OutcomeRunLogTests.theSweepBoundsTheTable` checks it
/// with many clients, one of which stops pushing.
extension SQLiteLedgerStore {
    /// Runs examined per group that appended any, at least.
    static let minimumSweep = 16

    /// Examines the runs after the cursor that may have expired and deletes those wholly outside their client's
    /// window; sets the transaction's new cursor (taken when it commits). `appended`: the runs the group appended. Call after ``flushClientLog()`` and
    /// with the group's last consumed mutationIds set.
    func sweepOutcomeRuns(appended: Int) throws {
        let horizon = clientLog.pendingPosition - outcomeRetention
        guard appended > 0, horizon > 0 else { return }
        guard clientLog.sweepCursor < horizon else {
            clientLog.pendingSweepCursor = 0
            return
        }
        let limit = max(2 * appended, Self.minimumSweep)
        var examined = 0, cursor = clientLog.sweepCursor
        var expired: [Int64] = []
        try connection.cached(literal: """
            SELECT run, client, last_mutation_id FROM outcome_runs WHERE run > ?1 AND run <= ?2 ORDER BY run LIMIT ?3
            """).forEach([.integer(clientLog.sweepCursor), .integer(horizon), .integer(Int64(limit))]) { row in
            examined += 1
            cursor = row.int64(0)
            guard let clientId = row.withBlob(1, Self.uuid(raw:)) else {
                throw LedgerError.storageFailed("outcome run \(cursor) has a client id that is not 16 bytes")
            }
            if row.int64(2) <= (try lastMutationId(clientId: clientId)) - outcomeRetention { expired.append(cursor) }
        }
        try rows.outcomeRunDeletes.run(count: expired.count) { row, index in try row.integer(expired[index]) }
        clientLog.pendingSweepCursor = examined < limit ? 0 : cursor
    }
}
