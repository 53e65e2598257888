import Foundation
import SQLite
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

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

    /// Writes zeros past the end of the WAL up to the size it has at `frames` frames, so that the syncs after
    /// COMMIT overwrite blocks the file already has instead of growing it (an `fdatasync` that must also
    /// commit the file's new size and blocks cost 2-5x more here: docs/benchmarks.md, "Round 7, sync after
    /// COMMIT"), as PostgreSQL recycles its WAL segments. The ledger does it once, after its first commit
    /// (a ledger nobody writes to keeps a small WAL). Only past the file's end, while holding the write lock
    /// (`BEGIN IMMEDIATE`): every frame any writer wrote lies before that end, and no writer, in this process
    /// or another, appends meanwhile.
    ///
    /// SQLite treats the zeros as empty WAL: it knows the valid frames from the WAL index, and crash recovery
    /// replays frames from the start only while each frame's salt matches the header's and its checksum
    /// chain holds, stopping at the first that does not (a zero frame carries salt 0; a zero header is no WAL
    /// at all). That is also what a WAL that SQLite restarted looks like: new frames, then the old
    /// generation's, which recovery ignores the same way. `DeferredDurabilityTests` recovers a copy.
    func preallocateWAL(frames: Int) throws {
        let pageSize = try connection.prepare("PRAGMA page_size").first { $0.int(0) } ?? 4096
        let target = 32 + frames * (pageSize + 24)  // the WAL header, then each frame's header and page
        try connection.transaction {
            let path = connection.path + "-wal"
            let descriptor = open(path, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw LedgerError.storageFailed("cannot open \(path): \(String(cString: strerror(errno)))") }
            // Closing it releases no lock: SQLite locks the database and the -shm file, never the -wal.
            defer { close(descriptor) }
            var status = stat()
            guard fstat(descriptor, &status) == 0 else { throw LedgerError.storageFailed("cannot stat \(path)") }
            var offset = Int(status.st_size)
            guard offset < target else { return }
            let zeros = [UInt8](repeating: 0, count: 1 << 20)
            while offset < target {
                let count = min(zeros.count, target - offset)
                let written = try zeros.withUnsafeBytes { bytes in
                    try syscall(where: "pwrite") { pwrite(descriptor, bytes.baseAddress, count, off_t(offset)) }
                }
                offset += written
            }
            _ = try syscall(where: "fdatasync") { fdatasync(descriptor) }
        }
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
