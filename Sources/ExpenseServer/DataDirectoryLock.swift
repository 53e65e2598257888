import FoundationEssentials
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// The exclusive lock of a data directory: `DIR/expensed.lock`, held with `flock(2)` by `expensed serve` for
/// as long as it runs and by `expensed restore` while it replaces a ledger.
///
/// Why: two daemons on one directory would each keep their own in-memory head and id map of the same files
/// and serve stale or conflicting answers; a restore under a running daemon would swap the file it writes.
/// `ledger add`, `ledger list` and `backup` do not take it (SQLite's own locking and atomic creation make them
/// safe beside a daemon).
///
/// The lock file holds the holder's pid as text, for the message of the process that is refused. The lock is
/// tied to the open file description: it is released when the holder closes it or dies (also by `SIGKILL`), so
/// a stale lock file never blocks a restart.
public final class DataDirectoryLock: Sendable {
    /// The lock file's name inside the data directory.
    public static let fileName = "expensed.lock"

    /// The directory locked.
    public let directory: String
    private let descriptor: Int32

    /// Takes the lock of `directory`, creating the directory (0700) and the lock file (0600) if needed.
    /// - Throws: ``LedgerError/dataDirectoryInUse(path:pid:)`` when another process holds it;
    ///   ``LedgerError/dataDirectory(path:detail:)`` when the file cannot be opened or locked.
    public init(directory: String) throws {
        self.directory = directory
        try LedgerDirectory.makeDirectory(directory)
        let path = directory + "/" + Self.fileName
        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw LedgerError.dataDirectory(path: directory, detail: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        let locked: IOResult<Int32>
        do throws(SystemCallError) {
            locked = try syscall(blocking: false, where: "flock") { flock(descriptor, LOCK_EX | LOCK_NB) }
        } catch {
            Glibc.close(descriptor)
            throw LedgerError.dataDirectory(path: directory, detail: "cannot lock \(path): \(error.reason)")
        }
        if case .wouldBlock = locked {
            let holder = Self.readPid(descriptor)
            Glibc.close(descriptor)
            throw LedgerError.dataDirectoryInUse(path: directory, pid: holder)
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        self.descriptor = descriptor
    }

    deinit { Glibc.close(descriptor) }

    /// The pid written in the lock file, if it reads as one.
    private static func readPid(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<count], as: UTF8.self).trimmingWhitespace)
    }

}
