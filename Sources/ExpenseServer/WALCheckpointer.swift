import FoundationEssentials
import SQLite
import Synchronization

/// Checkpoints of one SQLite ledger's WAL, off the ledger's thread (docs/reliability.md §1).
///
/// The ledger's connection never checkpoints inside a COMMIT (its automatic checkpoint is off): a checkpoint
/// copies WAL pages into the database file and fsyncs it, and every push queued behind that COMMIT would wait
/// for it; under a stream of 500-mutation pushes that was every ~0.15 s, on the thread every push goes through.
/// Instead, after each commit the ledger's thread tells this checkpointer how many frames the WAL has
/// (``committed(walFrames:)``, no I/O), and once the WAL has grown by ``threshold`` frames a `PASSIVE` checkpoint
/// runs on a second connection to the same file, on a thread of its own. `PASSIVE` never waits for the writer
/// nor blocks it: it copies the frames committed before it started. Commits still sync inside COMMIT
/// (`synchronous=FULL`): a checkpoint only moves what is durable already from one file to the other.
///
/// Bounded WAL: the file starts again from its beginning only when a writer begins a transaction while every
/// frame is in the database file. Under a steady stream of commits a background checkpoint seldom ends with
/// nothing new behind it, and a long reader (a `backup` of a large ledger, which holds one read snapshot)
/// keeps any checkpoint from passing its snapshot; then the WAL keeps growing. Past ``limit`` frames the
/// ledger's thread checkpoints the frames left on its own connection (``Action/checkpointHere``), between two
/// of its commits, so the next commit restarts the WAL: one stall of about one fsync of the database file, once
/// per ``limit`` frames, instead of a checkpoint of 8,192 frames inside a COMMIT.
///
/// A checkpoint that fails (an I/O error writing the database file) loses nothing: every frame stays in the
/// WAL, which is synced, and the next checkpoint copies it again. As with SQLite's own automatic checkpoint,
/// the commits go on; the first failure is kept for the owner (``takeFailure()``).
package final class WALCheckpointer: Sendable {
    /// WAL frames (pages) by which the WAL grows before a background checkpoint starts.
    package static let defaultThreshold = 4096
    package let threshold: Int
    /// WAL frames past which the ledger's thread checkpoints by itself (when no background checkpoint runs).
    package var limit: Int { threshold * 4 }

    /// What the ledger's thread does after a commit.
    package enum Action: Equatable, Sendable {
        /// Nothing (a background checkpoint may have been scheduled).
        case none
        /// Checkpoint on the ledger's own connection now: the WAL passed ``limit``.
        case checkpointHere
    }

    private let executor: LedgerExecutor
    private let databasePath: String
    /// The second connection, opened by the first checkpoint (a ledger nobody writes to never holds one) and
    /// used only while holding the lock (on the checkpoint thread, and by ``close()``).
    private let connection = Mutex(Connection.notOpened)
    private enum Connection {
        case notOpened
        case open(SQLiteConnection)
        case closed
    }
    private struct State {
        var scheduled = false
        /// Frames in the database file after the last checkpoint (0 after the WAL restarted).
        var checkpointed = 0
        var background = 0
        var failure: String?
    }
    private let state = Mutex(State())

    /// What a test injects at ``StoreFaultPoint/backgroundCheckpoint`` (the store's; it may also block the
    /// checkpoint thread); `nil` in the daemon.
    private let faults: StoreFaults?

    /// A checkpointer of the ledger file at `databasePath` (in WAL mode already); nothing is opened yet.
    package init(databasePath: String, threshold: Int = defaultThreshold, name: String, faults: StoreFaults? = nil) {
        self.faults = faults
        self.threshold = max(threshold, 1)
        self.databasePath = databasePath
        executor = LedgerExecutor(name: "checkpoint-" + name)
    }

    /// The second connection. A checkpoint syncs the WAL before copying and the database file after: set
    /// explicitly, never `OFF`. It never commits: no automatic checkpoint of its own.
    private static func open(_ path: String) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, mode: .readWrite)
        try connection.execute("PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 0;")
        return connection
    }

    /// Called on the ledger's thread after each commit with the WAL's frame count then. Schedules a background
    /// checkpoint when the WAL grew by ``threshold`` frames since the last one: under a steady stream of commits
    /// the WAL does not restart between checkpoints, and each one copies the pages of the frames behind the
    /// last, so a smaller step would copy the same hot pages (totals, outcomes) again and again.
    package func committed(walFrames: Int) -> Action {
        let (schedule, action) = state.withLock { state -> (Bool, Action) in
            if walFrames < state.checkpointed { state.checkpointed = 0 }  // the WAL restarted
            guard walFrames >= threshold else { return (false, .none) }
            if walFrames >= limit * (state.scheduled ? 2 : 1) { return (false, .checkpointHere) }
            guard !state.scheduled, walFrames - state.checkpointed >= threshold else { return (false, .none) }
            state.scheduled = true
            return (true, .none)
        }
        if schedule { executor.enqueue { [self] in runBackground() } }
        return action
    }

    /// The ledger's thread checkpointed on its own connection: `walFrames` frames are in the database file.
    package func checkpointedHere(walFrames: Int) {
        state.withLock { $0.checkpointed = walFrames }
    }

    /// The ledger's thread could not checkpoint on its own connection.
    package func failedHere(_ error: any Error) {
        state.withLock { $0.failure = $0.failure ?? "checkpoint failed: \(error)" }
    }

    private func runBackground() {
        let path = databasePath
        let faults = self.faults
        let result: Result<SQLiteConnection.Checkpoint?, any Error> = connection.withLock { connection in
            Result {
                if case .notOpened = connection { connection = .open(try Self.open(path)) }
                guard case .open(let open) = connection else { return nil }
                try faults?.check(.backgroundCheckpoint)
                return try open.checkpoint(.passive)
            }
        }
        state.withLock { state in
            state.scheduled = false
            switch result {
            case .success(let checkpoint?):
                state.background += 1
                if !checkpoint.busy { state.checkpointed = max(state.checkpointed, checkpoint.checkpointed) }
            case .success(nil): break
            case .failure(let error):
                state.failure = state.failure ?? "checkpoint failed: \(error)"
            }
        }
    }

    /// The first failure of a checkpoint since the last call, once.
    package func takeFailure() -> String? {
        state.withLock { state in
            defer { state.failure = nil }
            return state.failure
        }
    }

    /// Background checkpoints done so far.
    package var backgroundCount: Int { state.withLock { $0.background } }

    /// Waits for a running checkpoint, closes the second connection (before the ledger's own: the last one to
    /// close folds the WAL into the file and deletes it).
    package func close() {
        connection.withLock { $0 = .closed }
    }
}
