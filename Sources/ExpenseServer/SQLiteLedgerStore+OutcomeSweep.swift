import ExpenseCore
import Foundation
import SQLite

/// The sweep that bounds what `outcome_runs` stores (docs/reliability.md, "A lost answer is learned, not guessed").
///
/// The rule: a run whose last mutationId is at or below its client's `lastMutationId - outcomeRetention` is
/// outside the window for good (a client's ids only move on) and is deleted. Finding such runs by client would
/// need an index on `client`, which would dirty a page per pushing client per group again; instead a cursor goes
/// round the table in `run` order, each group that appends `a` runs examining the next `max(2a, 16)` after it and
/// deleting the expired ones, in the group's transaction, and starting again from the first run after the last.
///
/// Why that bounds the table: the cursor covers the table faster than groups grow it (two runs examined per run
/// appended), so every run is examined again within a bounded number of appends after it expires, and deleted
/// then. Inside the window a client has at most `outcomeRetention` runs (each holds at least one of its
/// mutationIds), so the table holds at most about twice `outcomeRetention` runs per client, plus one sweep's
/// worth: the same order as the `outcomeRetention` rows per client the old `outcomes` table kept.
/// `OutcomeRunLogTests.theSweepBoundsTheTable` checks it with many clients, one of which stops pushing.
extension SQLiteLedgerStore {
    /// Runs examined per group that appended any, at least.
    static let minimumSweep = 16

    /// Examines the runs after the cursor and deletes those wholly outside their client's window; sets the
    /// transaction's new cursor (taken when it commits). Call after the group's `clients` rows are written.
    func sweepOutcomeRuns(appended: Int) throws {
        guard appended > 0 else { return }
        let limit = max(2 * appended, Self.minimumSweep)
        var examined = 0, cursor = sweepCursor
        var expired: [Int64] = []
        let runs = try connection.cached(literal: """
            SELECT run, client, last_mutation_id FROM outcome_runs WHERE run > ?1 ORDER BY run LIMIT ?2
            """).map([.integer(sweepCursor), .integer(Int64(limit))]) { row in
            (run: row.int64(0), client: try Self.uuid(row.blob(1)), last: row.int64(2))
        }
        for run in runs {
            examined += 1
            cursor = run.run
            if run.last <= (try lastMutationId(clientId: run.client)) - outcomeRetention { expired.append(run.run) }
        }
        try rows.outcomeRunDeletes.run(count: expired.count) { row, index in try row.integer(expired[index]) }
        pendingSweepCursor = examined < limit ? 0 : cursor
    }
}
