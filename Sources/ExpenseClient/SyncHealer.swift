import ExpenseCore
import ExpenseProtocol
import Foundation

/// The sync's side of healing a cache whose daemon replaced its history (restored from a backup, Protocol.md
/// §5.7): it pulls everything from 0 and hands each page to the ledger, whose side (`LocalLedger+Heal.swift`)
/// reconciles the records with the server copies the daemon may have lost and queues again what it lost.
///
/// A round calls it when the ledger holds a heal point (noted by ``LocalLedger/beginSession(_:remote:)`` from
/// `hello`, or left by a heal cut short) or when a pull is refused as
/// `history_replaced`; ``SyncEngine/heal(on:from:report:)`` runs it alone for a test.
struct SyncHealer {
    let ledger: LocalLedger
    /// Records asked for per `pull` page.
    let pullLimit: Int
    /// Told what happens, for `--verbose` or logs.
    let log: (String) -> Void

    /// Heals from `point`: pulls everything from 0, reconciling each record with the server copies the daemon may
    /// have lost, then queues again what it lost. The queue is pushed by the rounds that follow.
    func heal(on connection: SyncConnection, from point: Int64, report: inout SyncEngine.Report) throws {
        var lost = try ledger.lostCopies(above: point)
        log("heal: the daemon's history was replaced at \(point); \(lost.count) records to check")
        let pages = PullPrefetcher(connection: connection, since: 0, limit: pullLimit)
        defer { pages.finish() }
        var pulled = Set<UUID>()
        while let page = try pages.next() {
            report.newConflicts += try ledger.heal(pulled: page.changes, lost: &lost, point: point, cursor: page.cursor)
            report.pulled += page.changes.count + (try ledger.apply(pulledData: page.dataChanges))
            for record in page.changes { pulled.insert(record.expense.id) }
            for record in page.dataChanges { pulled.insert(record.id) }
        }
        // Records whose tombstones a compaction purged (Protocol.md §5.9).
        let purged = try ledger.dropPurged(pulled: pulled, point: point)
        if purged > 0 { log("heal: \(purged) records are gone from the daemon (compacted tombstones)") }
        try ledger.finishHeal(absent: lost)
        // Only the kinds this session is served were pulled: the others are left for a session that is.
        let served = Set(connection.hello.kinds ?? []).intersection(ledger.keptKinds)
        let requeued = try ledger.healData(pulled: pulled, point: point, kinds: served)
        try ledger.setPulledKinds(served)
        if requeued > 0 { log("heal: \(requeued) budgets, rules or settings the daemon did not have are queued again") }
        log("heal: done; \(lost.count) records the daemon did not have are queued again")
    }
}
