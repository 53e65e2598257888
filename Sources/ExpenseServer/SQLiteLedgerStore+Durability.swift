import Foundation
import SQLite

/// Deferred durability (docs/reliability.md §1): the store commits with `synchronous=NORMAL` and without its
/// automatic checkpoint; the ``Ledger`` serving it syncs the WAL after COMMIT and checkpoints off its thread.
extension SQLiteLedgerStore {
    /// Switches this store's commits to `synchronous=NORMAL` without automatic checkpoints and returns what
    /// makes them durable, after syncing what the WAL holds now (a daemon that was killed may have left
    /// commits in the WAL that no sync covered: nothing is served before they are on disk).
    /// - Returns: `nil` when the file is not power-safe overwrite (then `NORMAL` plus our sync would not be
    ///   what `FULL` does: the store keeps `FULL`).
    /// - Throws: when the WAL cannot be opened or synced, or the second connection cannot be opened; the store
    ///   keeps `FULL` and its automatic checkpoint then.
    package func deferDurability(checkpointThreshold: Int, name: String) throws -> LedgerDurability? {
        guard connection.isPowersafeOverwrite else { return nil }
        let wal = try WALSync(walPath: connection.path + "-wal")
        try wal.sync()
        let checkpointer = try WALCheckpointer(databasePath: connection.path, threshold: checkpointThreshold, name: name)
        do {
            try connection.execute("PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0;")
        } catch {
            try? connection.execute("PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 8192;")
            throw error
        }
        connection.trackWALFrames()
        return LedgerDurability(wal: wal, checkpointer: checkpointer, name: name)
    }

    /// The WAL's frames after the latest commit (``SQLite/SQLiteConnection/trackWALFrames()``).
    var walFrames: Int { connection.walFrameCount }

    /// A `PASSIVE` checkpoint on the ledger's own connection, between two commits: with no other writer, it
    /// copies every frame, so the next commit starts the WAL again (``WALCheckpointer``'s bound).
    /// - Returns: the frames checkpointed.
    func checkpointOwnConnection() throws -> Int {
        try connection.checkpoint(.passive).checkpointed
    }
}
