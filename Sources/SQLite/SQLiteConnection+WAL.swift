import CSQLite

/// Checkpoints on demand, for an owner that copies a WAL into its database file itself (a first sync's
/// `BulkLoadCheckpoint`, beside the index build; the daemon's ledgers, off their thread: `WALCheckpointer`).
extension SQLiteConnection {
    /// The modes of `sqlite3_wal_checkpoint_v2`.
    public enum CheckpointMode: Sendable {
        /// Copies what it can without waiting for anyone; never blocks a writer or a reader.
        case passive
        /// Waits for writers, then copies everything, then waits until no reader uses the WAL so the next
        /// writer starts it again from its beginning.
        case restart
        /// ``restart``, then truncates the WAL file to zero bytes.
        case truncate

        var rawValue: Int32 {
            switch self {
            case .passive: SQLITE_CHECKPOINT_PASSIVE
            case .restart: SQLITE_CHECKPOINT_RESTART
            case .truncate: SQLITE_CHECKPOINT_TRUNCATE
            }
        }
    }

    /// What a checkpoint did.
    public struct Checkpoint: Sendable, Equatable {
        /// The frames in the WAL.
        public var walFrames: Int
        /// How many of them are in the database file now (all of them: the next writer restarts the WAL).
        public var checkpointed: Int
        /// `SQLITE_BUSY`: another checkpoint was running, or (``CheckpointMode/restart``) a reader or writer
        /// kept it from finishing. Not an error: the WAL keeps everything.
        public var busy: Bool
    }

    /// Checkpoints the `main` database in `mode`.
    /// - Throws: ``SQLiteError`` for anything but `SQLITE_BUSY` (an I/O error copying or syncing).
    public func checkpoint(_ mode: CheckpointMode) throws -> Checkpoint {
        var frames: Int32 = 0, checkpointed: Int32 = 0
        let result = sqlite3_wal_checkpoint_v2(handle, "main", mode.rawValue, &frames, &checkpointed)
        guard result == SQLITE_OK || result == SQLITE_BUSY else { throw error(result, sql: "checkpoint") }
        return Checkpoint(walFrames: Int(frames), checkpointed: Int(checkpointed), busy: result == SQLITE_BUSY)
    }

    /// Replaces SQLite's automatic checkpoint (`wal_autocheckpoint`, itself a WAL hook) with a hook that only
    /// keeps the WAL's frame count after each commit in ``walFrameCount``: this connection never checkpoints
    /// by itself from now on; its owner does (``checkpoint(_:)``, here or on another connection).
    public func trackWALFrames() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        // The hook runs inside this connection's COMMIT, on its owner's thread; `self` outlives it because
        // `deinit` closes the handle (and with it the hook) before the object goes.
        sqlite3_wal_hook(handle, { context, _, _, frames in
            guard let context else { return SQLITE_OK }
            Unmanaged<SQLiteConnection>.fromOpaque(context).takeUnretainedValue().walFrameCount = Int(frames)
            return SQLITE_OK
        }, context)
    }
}
