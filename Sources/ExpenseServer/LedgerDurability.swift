import Foundation
import Synchronization

/// What a ledger whose COMMIT does not sync uses to make its commits durable and keep its WAL short
/// (docs/reliability.md §1): its WAL's ``WALSync``, the thread that runs the syncs after COMMIT, and the
/// ``WALCheckpointer``. Made by ``SQLiteLedgerStore/deferDurability(checkpointThreshold:name:)``.
package final class LedgerDurability: Sendable {
    package let wal: WALSync
    package let checkpointer: WALCheckpointer
    /// Runs the background syncs, one after another (a thread of its own, never the cooperative pool: a
    /// sync blocks).
    let syncThread: LedgerExecutor
    /// Whether the WAL was grown to its checkpoint threshold (``SQLiteLedgerStore/preallocateWAL(frames:)``).
    let walPreallocated = Atomic(false)

    init(wal: WALSync, checkpointer: WALCheckpointer, name: String) {
        self.wal = wal
        self.checkpointer = checkpointer
        syncThread = LedgerExecutor(name: "sync-" + name)
    }

    /// How a ``Ledger`` makes its commits durable.
    package enum Mode: Sendable {
        /// The store syncs inside each COMMIT (SQLite `synchronous=FULL`, PostgreSQL, in memory).
        case atCommit
        /// A SQLite store commits without syncing; the ledger syncs the WAL on a thread of its own and
        /// checkpoints on another (``WALCheckpointer``), starting a background checkpoint past
        /// `checkpointThreshold` WAL frames. Stores that cannot (not SQLite, not power-safe overwrite) stay
        /// at ``atCommit``.
        case deferred(checkpointThreshold: Int = WALCheckpointer.defaultThreshold)
    }

    /// Stops the checkpoints (waiting for a running one) and closes the WAL's descriptor after a last sync.
    /// - Throws: what that last sync throws.
    func close() throws(LedgerError) {
        checkpointer.close()
        syncThread.shutdown()
        try wal.close()
    }
}
