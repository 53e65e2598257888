import ExpenseCore
import ExpenseProtocol
import Foundation

/// The pulls of a round: pages from the stored cursor (healing when the daemon's history is not the one pulled),
/// and the catch-up of a kind newly served.
extension SyncRound {
    /// Pulls pages from the stored cursor until `more` is false.
    /// Into an empty cache the store may load in bulk (``ExpenseStore/beginBulkLoad()``) until the last page.
    func pull(on connection: SyncConnection, report: inout Report, produced: ProducedVersions) throws {
        let (progress, log) = (configuration.progress, configuration.log)
        let bulk = try ledger.store.beginBulkLoad()
        let from = try ledger.pullCursor()
        let head = max(connection.hello.cursor, produced.cursor, from)
        let clock = ContinuousClock()
        let began = clock.now
        var pulled = 0, fromOthers = 0
        progress?(.pulling(records: 0, from: from, cursor: from, head: head))
        // Pages are read and decoded on a thread of their own (one request in flight), so the daemon's
        // encoding, this side's decoding and the writes overlap. The stored cursor only moves with a stored page.
        let pages = PullPrefetcher(connection: connection, since: from, limit: configuration.pullLimit)
        defer { pages.finish() }
        var waited = Duration.zero
        while true {
            let asked = clock.now
            guard let page = try pages.next() else { break }
            waited += clock.now - asked
            fromOthers += try ledger.apply(pulled: page.changes, dataChanges: page.dataChanges, cursor: page.cursor,
                                           produced: produced.seqs)
            pulled += page.changes.count
            progress?(.pulling(records: pulled, from: from, cursor: page.cursor, head: max(head, page.cursor)))
        }
        report.pulled += fromOthers
        log("pull: \(pulled) records (\(fromOthers) others' changes) in \(clock.now - began)\(bulk ? " (bulk load)" : ""), \(waited) of it waiting for pages")
        if bulk {
            progress?(.indexing)
            let indexing = clock.now
            try ledger.store.endBulkLoad()
            log("pull: indexes built in \(clock.now - indexing)")
        }
    }

    /// ``pull(on:report:produced:)``, healing (``SyncHealer``) when the daemon's history is not the one pulled
    /// (Protocol.md §5.3, §5.7): healing never fails the sync.
    func pullHealing(on connection: SyncConnection, report: inout Report, produced: ProducedVersions) throws {
        do {
            try pull(on: connection, report: &report, produced: produced)
        } catch SyncError.historyReplaced(let reason) {
            configuration.log("pull refused (\(reason)); healing from \(connection.hello.cursor)")
            try ledger.requireHeal(from: connection.hello.cursor)
            try healer.heal(on: connection, from: try ledger.healPoint() ?? 0, report: &report)
        }
    }

    /// Reads the records of kinds this cache has not pulled from the start of the history (a daemon that began
    /// serving a kind, or a cache from before one pipeline), from cursor 0 up to the stored cursor, without the
    /// expenses held already (`expenses: false`, Protocol.md §5.3). The stored cursor does not move.
    ///
    /// Then the kinds pulled are exactly `kinds`, the session's: the cursor this session moves passes over the
    /// records of a kind it is not served, so such a kind is read from the start again once a session is.
    func catchUp(_ kinds: Set<RecordKind>, on connection: SyncConnection, report: inout Report) throws {
        let pulled = try ledger.pulledKinds()
        let cursor = try ledger.pullCursor()
        if !kinds.isSubset(of: pulled), cursor > 0 {
            var since: Int64 = 0
            while since < cursor {
                let page = try connection.call(PullRequest(since: since, limit: configuration.pullLimit, expenses: false))
                report.pulled += try ledger.apply(pulledData: page.dataChanges.filter { $0.seq <= cursor })
                if !page.more || page.cursor <= since { break }
                since = page.cursor
            }
            configuration.log("pull: read \(kinds.subtracting(pulled).map(\.rawValue).sorted().joined(separator: ", ")) from the start up to \(cursor)")
        }
        if pulled != kinds { try ledger.setPulledKinds(kinds) }
    }
}
