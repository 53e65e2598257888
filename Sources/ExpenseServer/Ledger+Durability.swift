import ExpenseProtocol
import Foundation

/// Deferred durability (docs/reliability.md §1): a group's COMMIT does not sync; an fdatasync of the WAL on the
/// ledger's sync thread does, while this thread commits the next group, and the group is answered only when
/// that sync (one that started after its COMMIT) returned. ``DurabilityPipeline`` decides; this performs.
extension Ledger {
    /// A committed group waiting to be answered.
    struct CommittedGroup {
        var completions: [@Sendable (Result<PushResult, any Error>) -> Void]
        var results: [PushResult]
        /// The head once the group committed.
        var head: Int64
    }

    /// The store's deferred durability for `mode`, or `nil` (the store syncs at COMMIT as before) when the
    /// store is not SQLite or cannot defer safely.
    static func durability(_ mode: LedgerDurability.Mode, of store: any LedgerStore, name: String) -> LedgerDurability? {
        guard case .deferred(let threshold) = mode, let store = store as? SQLiteLedgerStore else { return nil }
        return try? store.deferDurability(checkpointThreshold: threshold, name: name)
    }

    /// After a group's COMMIT: answers it at once when the store synced inside COMMIT; otherwise queues it for
    /// the next sync, starts one if none is in flight, and lets the checkpointer look at the WAL.
    func committed(_ group: CommittedGroup) {
        guard let durability, let store = engine?.store as? SQLiteLedgerStore else {
            acknowledge([group])
            return
        }
        start(pipeline.commit(group))
        if let error = durability.checkpointer.takeFailure() { failure = .ledgerFailed(error.message) }
        if !durability.walPreallocated.exchange(true, ordering: .relaxed) {
            // An optimisation only: a failure leaves the WAL growing as before (and an I/O error on the file
            // reaches the next sync of `WALSync`'s descriptor too).
            try? store.preallocateWAL(frames: durability.checkpointer.threshold)
        }
        if durability.checkpointer.committed(walFrames: store.walFrames) == .checkpointHere {
            do {
                durability.checkpointer.checkpointedHere(walFrames: try store.checkpointOwnConnection())
            } catch {
                failure = .ledgerFailed(LedgerError.storage(error).message)
            }
        }
    }

    /// A commit nobody waits for (compaction, tokens): the next sync covers it.
    func noteWrite() {
        if durability != nil { pipeline.noteWrite() }
    }

    private func start(_ action: DurabilityPipeline<CommittedGroup>.Action) {
        guard case .startSync(let through) = action, let durability else { return }
        let wal = durability.wal
        durability.syncThread.enqueue {
            let result = Result { () throws(LedgerError) in try wal.sync() }
            self.perform { $0.backgroundSyncEnded(through: through, result) }
        }
    }

    private func backgroundSyncEnded(through: Int, _ result: Result<Void, LedgerError>) {
        guard durability != nil else { return }
        settle(pipeline.backgroundSyncEnded(through: through, succeeded: (try? result.get()) != nil), error: result.failure)
    }

    /// Makes everything committed so far durable, on the ledger's thread (after any sync in flight): the barrier
    /// before every read (``openEngine()``) and in ``close()``. Answers the groups it makes durable first.
    /// - Throws: ``LedgerError/ledgerFailed(_:)`` once a sync failed: the connection may show commits the file
    ///   does not hold, so reads are refused too until the ledger is re-opened.
    func makeDurable() throws {
        guard let durability else { return }
        if pipeline.failed { throw failure ?? LedgerError.ledgerFailed("a sync of the WAL failed") }
        guard pipeline.needsSync else { return }
        do {
            try durability.wal.sync()
            settle(pipeline.syncedInline(succeeded: true), error: nil)
        } catch {
            settle(pipeline.syncedInline(succeeded: false), error: error)
            throw failure ?? error
        }
    }

    private func settle(_ outcome: DurabilityPipeline<CommittedGroup>.Outcome, error: LedgerError?) {
        acknowledge(outcome.acknowledged)
        if pipeline.failed {
            let detail = error?.message ?? "a sync of the WAL failed"
            failure = .ledgerFailed(detail)
            let answer = error ?? LedgerError.storageFailed(detail)
            for group in outcome.failed {
                for completion in group.completions { completion(.failure(answer)) }
            }
        }
        start(outcome.next)
    }

    /// Answers durable groups, in commit order, after moving the head that `ping` reads; then wakes the watchers.
    private func acknowledge(_ groups: [CommittedGroup]) {
        guard let head = groups.last?.head else { return }
        let before = committedHead.load(ordering: .acquiring)
        if head > before { committedHead.store(head, ordering: .releasing) }
        // One `write` for the groups' log lines, still one line per push (ServerLog.coalescingWrites).
        ServerLog.coalescingWrites {
            for group in groups {
                for (completion, result) in zip(group.completions, group.results) { completion(.success(result)) }
            }
        }
        if head > before { for watcher in watchers.values { watcher(head) } }
    }

    /// ``close()``'s part: every committed push answered (durable, or failed), then the checkpoint thread
    /// stopped and the WAL's descriptor closed after a last sync.
    func closeDurability() {
        guard let durability else { return }
        try? makeDurable()
        try? durability.close()
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
