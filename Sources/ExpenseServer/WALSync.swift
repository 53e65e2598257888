import Foundation
import Synchronization
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// Our own `fdatasync` of one ledger's SQLite WAL (`<file>-wal`), run after COMMIT by the ledger's sync thread
/// or by the ledger's thread itself (docs/reliability.md §1).
///
/// Why this is as durable as `synchronous=FULL` for every commit it covers. In WAL mode a commit is frames
/// appended to the `-wal` file, the last one marked as a commit frame; crash recovery replays the frames whose
/// salt matches the WAL header and whose checksum chain holds, up to the last commit frame, and drops the rest.
/// `FULL` differs from `NORMAL` only by one sync of the WAL at the end of each COMMIT (sqlite.org/pragma.html
/// #pragma_synchronous, wal.html): with `NORMAL` the same frames are written, and an `fdatasync` of the same
/// inode that starts after COMMIT returned puts them on disk just as that sync would (Linux writes back every
/// page of the file dirtied before the call, with the size that locates them). Hence a commit is acknowledged
/// only after an `fdatasync` that started after it returned successfully.
/// - A WAL restart (after a complete checkpoint the next writer starts again at frame 1 with a new salt) writes
///   a new header; SQLite syncs that header by itself even under `NORMAL` (`walFrames`: the header sync uses the
///   checkpoint sync flags) before the first frame, and frames of the old generation it overwrites were all
///   in the database file already (a restart needs every frame checkpointed, and the database synced). A crash
///   before our sync leaves the new frames with a broken chain or the old salt: only unacknowledged commits go.
/// - SQLite pads a synced commit to a sector boundary only when the file is not power-safe overwrite; the store
///   defers its syncs only when it is (``SQLite/SQLiteConnection/isPowersafeOverwrite``), so `FULL` would not
///   have padded either.
/// - The file must be the inode SQLite writes: SQLite opened it by this path before us and never unlinks it
///   while the ledger's connection is open (only the last connection's close deletes the WAL); the check at
///   open and before each sync makes sure the path still names the inode we hold.
/// - Closing our descriptor releases no lock: SQLite's WAL locks are on the `-shm` file and the database, never
///   on the `-wal` (a POSIX lock dies with any descriptor of its file).
/// - An `fdatasync` error is reported once per open file description (Linux 4.13+): syncs are serialised on
///   this one descriptor and the first failure is sticky, so a later call never reports success for pages the
///   kernel dropped.
package final class WALSync: Sendable {
    /// The `-wal` file.
    package let path: String
    private let device: UInt
    private let inode: UInt
    private struct State {
        var descriptor: Int32
        var failure: LedgerError?
        var fault: (@Sendable (StoreFaultPoint) -> (any Error)?)?
        var syncs = 0
    }
    /// Held for the whole of each sync: one sync at a time on the descriptor.
    private let state: Mutex<State>

    /// Opens `walPath` read-only; it must exist (SQLite creates it on the connection's first read).
    /// - Throws: ``LedgerError/storageFailed(_:)`` when it cannot be opened or is not the file SQLite has open.
    package init(walPath: String) throws(LedgerError) {
        path = walPath
        let descriptor = open(walPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw LedgerError.storageFailed("cannot open \(walPath): \(String(cString: strerror(errno)))")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, Self.isOpenElsewhere(device: status.st_dev, inode: status.st_ino, besides: descriptor) else {
            Glibc.close(descriptor)
            throw LedgerError.storageFailed("\(walPath) is not the WAL this process has open")
        }
        device = status.st_dev
        inode = status.st_ino
        state = Mutex(State(descriptor: descriptor))
    }

    deinit {
        state.withLock { state in
            if state.descriptor >= 0 { Glibc.close(state.descriptor) }
        }
    }

    /// Makes every commit whose COMMIT returned before this call durable. Blocks while another sync runs.
    /// - Throws: ``LedgerError/storageFailed(_:)`` when the sync fails, and from then on at every call.
    package func sync() throws(LedgerError) {
        try state.withLock { (state: inout State) throws(LedgerError) in
            if let failure = state.failure { throw failure }
            guard state.descriptor >= 0 else { return }  // closed: the close synced everything it covered
            do {
                if let error = state.fault?(.sync) { throw error }
                var status = stat()
                guard stat(path, &status) == 0, status.st_dev == device, status.st_ino == inode else {
                    throw LedgerError.storageFailed("\(path) is no longer the file this daemon syncs")
                }
                let descriptor = state.descriptor
                _ = try syscall(where: "fdatasync") { fdatasync(descriptor) }
                state.syncs += 1
            } catch {
                let failure = LedgerError.storageFailed("syncing \(path) failed: \(error)")
                state.failure = failure
                throw failure
            }
        }
    }

    /// Syncs done so far (the tests' and the benchmarks' count).
    package var syncCount: Int { state.withLock { $0.syncs } }

    /// Test hook: an error to throw at ``StoreFaultPoint/sync`` instead of syncing (it may also block).
    package func setFault(_ fault: (@Sendable (StoreFaultPoint) -> (any Error)?)?) {
        state.withLock { $0.fault = fault }
    }

    /// Closes the descriptor after a last sync; later ``sync()`` calls do nothing.
    /// - Throws: what that last sync throws.
    package func close() throws(LedgerError) {
        try sync()
        state.withLock { state in
            if state.descriptor >= 0 { Glibc.close(state.descriptor) }
            state.descriptor = -1
        }
    }

    /// Whether another descriptor of this process (SQLite's) has the inode open: the proof that `path` names
    /// the WAL SQLite writes. True where `/proc/self/fd` cannot be read (then the path is trusted).
    private static func isOpenElsewhere(device: UInt, inode: UInt, besides ours: Int32) -> Bool {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return true }
        return entries.contains { entry in
            guard let descriptor = Int32(entry), descriptor != ours else { return false }
            var status = stat()
            return stat("/proc/self/fd/" + entry, &status) == 0 && status.st_dev == device && status.st_ino == inode
        }
    }
}
