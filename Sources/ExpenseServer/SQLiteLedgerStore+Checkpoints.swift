import FoundationEssentials
import SQLite

/// Checkpoints of the ledger's WAL off its thread (``WALCheckpointer``; docs/reliability.md §1): what the daemon
/// turns on for every SQLite ledger it serves. Tools that open a ledger for one job keep SQLite's automatic
/// checkpoint.
extension SQLiteLedgerStore {
    /// Turns SQLite's automatic checkpoint off for this connection and has a ``WALCheckpointer`` copy the WAL into
    /// the database file on a second connection instead. Does nothing for a database in memory (a second
    /// connection would open another one), whose automatic checkpoint stays. The second connection opens with
    /// the first checkpoint; if it cannot, that checkpoint fails as any other would (``takeBackgroundFailure()``)
    /// and the ledger's thread keeps the WAL bounded.
    /// - Parameter threshold: the WAL's growth, in frames, that starts a background checkpoint.
    package func checkpointInBackground(threshold: Int = WALCheckpointer.defaultThreshold, name: String) {
        guard checkpointer == nil, !connection.path.isEmpty, connection.path != ":memory:" else { return }
        let checkpointer = WALCheckpointer(databasePath: connection.path, threshold: threshold, name: name, faults: faults)
        do {
            try connection.execute("PRAGMA wal_autocheckpoint = 0;")
        } catch {
            checkpointer.close()
            return
        }
        connection.trackWALFrames()
        self.checkpointer = checkpointer
    }

    /// The WAL's frames after the latest commit (0 before ``checkpointInBackground(threshold:name:)``).
    var walFrames: Int { connection.walFrameCount }

    /// After a commit: lets the checkpointer look at the WAL and, when it says so (the WAL passed its limit with
    /// no background checkpoint keeping up), checkpoints here, between two commits, so the next commit restarts
    /// the WAL. A failure loses nothing (the frames stay in the synced WAL) and is kept for ``takeBackgroundFailure()``.
    func checkpointAfterCommit(_ checkpointer: WALCheckpointer) {
        guard checkpointer.committed(walFrames: walFrames) == .checkpointHere else { return }
        do {
            try faults?.check(.checkpoint)
            checkpointer.checkpointedHere(walFrames: try connection.checkpoint(.passive).checkpointed)
        } catch {
            checkpointer.failedHere(error)
        }
    }

    /// The first checkpoint failure since the last call, once (`nil`: none, or no background checkpoints).
    package func takeBackgroundFailure() -> String? { checkpointer?.takeFailure() }
}
