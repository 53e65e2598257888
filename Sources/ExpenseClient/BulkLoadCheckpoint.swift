import Dispatch
import SQLite

/// `PASSIVE` checkpoints of a cache's WAL, on second connections and a queue of their own, while the store's
/// connection goes on: a first sync's pages, which its bulk load appended without checkpointing
/// (``SQLiteExpenseStore/beginBulkLoad()``), are copied into the database file beside the index build instead of
/// inside the appends' commits, on the core the daemon has left idle.
///
/// `PASSIVE` neither waits for nor blocks the store's writer: it copies the frames committed before it began,
/// as far as no reader still needs them, and syncs the WAL before and the file after. A checkpoint that copies
/// less, or fails, loses nothing: the WAL keeps every frame until a later checkpoint (SQLite's own after a
/// commit, or at close) copies it.
final class BulkLoadCheckpoint: Sendable {
    private let path: String
    private let queue = DispatchQueue(label: "expense-checkpoint")

    /// For the database file at `path` (in WAL mode, opened by the store).
    init(path: String) { self.path = path }

    /// Queues one checkpoint of what is committed when it begins, after those queued before it; returns at once.
    func start() {
        queue.async { [path] in
            // A connection opens the WAL when it first reads; before that a checkpoint finds none.
            if let connection = try? SQLiteConnection(path: path, mode: .readWrite),
               (try? connection.execute("SELECT count(*) FROM sqlite_schema")) != nil {
                _ = try? connection.checkpoint(.passive)
            }
        }
    }

    /// Waits until every checkpoint queued has ended and its connection is closed.
    func wait() { queue.sync {} }
}
