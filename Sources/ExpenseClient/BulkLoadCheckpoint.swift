import Foundation
import SQLite

/// One `PASSIVE` checkpoint of a cache's WAL, on a second connection and a thread of its own, while the store's
/// connection goes on: a first sync's pages, which its bulk load appended without checkpointing
/// (``SQLiteExpenseStore/beginBulkLoad()``), are copied into the database file beside the index build instead of
/// inside the appends' commits, on the core the daemon has left idle (docs/benchmarks.md, "Round 7, first sync,
/// part 2").
///
/// `PASSIVE` neither waits for nor blocks the store's writer: it copies the frames committed before it began,
/// as far as no reader still needs them, and syncs the WAL before and the file after. A checkpoint that copies
/// less, or fails, loses nothing: the WAL keeps every frame until a later checkpoint (SQLite's own after a
/// commit, or at close) copies it.
final class BulkLoadCheckpoint: Sendable {
    private let done = DispatchSemaphore(value: 0)

    /// Starts the checkpoint of the database file at `path` (in WAL mode, opened by the store).
    init(path: String) {
        let thread = Thread { [done] in
            // A connection opens the WAL when it first reads; before that a checkpoint finds none.
            if let connection = try? SQLiteConnection(path: path, mode: .readWrite),
               (try? connection.execute("SELECT count(*) FROM sqlite_schema")) != nil {
                _ = try? connection.checkpoint(.passive)
            }
            done.signal()
        }
        thread.name = "expense-checkpoint"
        thread.start()
    }

    /// Waits until the checkpoint has ended and its connection is closed.
    func wait() { done.wait() }
}
