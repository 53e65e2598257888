import Foundation
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive advisory lock (`flock(2)`) on a lock file, shared by every `expense` process on one home.
///
/// The rule (docs/reliability.md, "Many commands on one home"): a store takes its writer lock only around one
/// read-modify-write (``ExpenseStore/write(_:)`` and opening), never across a network wait, so a command
/// waits at most for another command's transaction, never for a sync's round trip.
///
/// `flock` locks belong to the open file description: two `FileLock`s on one path (two stores in one process)
/// exclude each other like two processes do, and the kernel drops a lock when its holder exits or crashes, so
/// a lock file left behind never blocks anyone. Re-entrant within one `FileLock` (nested calls take it once).
///
/// - Important: Not `Sendable`; one owner uses it, like the store that holds it.
final class FileLock {
    /// The lock file.
    let path: String
    private var descriptor: Int32 = -1
    private var depth = 0

    init(path: String) {
        self.path = path
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Runs `body` holding the lock, waiting as long as another holder keeps it.
    /// - Throws: ``StoreError/writeFailed(path:reason:)`` when the lock file cannot be opened or locked;
    ///   what `body` throws.
    func withExclusive<T>(_ body: () throws -> T) throws -> T {
        if depth == 0 { try acquire(blocking: true) }
        depth += 1
        defer {
            depth -= 1
            if depth == 0 { release() }
        }
        return try body()
    }

    /// Takes the lock if nobody holds it and keeps it until ``release()`` (or until this object goes).
    /// - Returns: `false` when another holder has it.
    func tryAcquire() throws -> Bool {
        guard depth == 0 else { return true }
        guard try acquire(blocking: false) else { return false }
        depth = 1
        return true
    }

    /// Gives up a lock taken with ``tryAcquire()``.
    func unlock() {
        guard depth > 0 else { return }
        depth = 0
        release()
    }

    /// The open lock file (created mode 0600 when missing; read-only when it cannot be written: `flock` needs
    /// no write access), for writing a note into it such as the holder's process id.
    func fileDescriptor() throws -> Int32 {
        if descriptor >= 0 { return descriptor }
        let opened: Int32
        do throws(SystemCallError) {
            do throws(SystemCallError) {
                opened = try syscall(where: "open") { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
            } catch where error.errno == EACCES || error.errno == EROFS {
                opened = try syscall(where: "open") { open(path, O_RDONLY | O_CLOEXEC) }
            }
        } catch {
            throw StoreError.failure(error.errno, path: path, needed: "to create and lock it (its directory must be writable)", otherwise: {
                .writeFailed(path: $0, reason: "cannot open the lock file: \($1)")
            })
        }
        descriptor = opened
        return opened
    }

    @discardableResult
    private func acquire(blocking: Bool) throws -> Bool {
        let descriptor = try fileDescriptor()
        do throws(SystemCallError) {
            switch try syscall(blocking: blocking, where: "flock", { flock(descriptor, LOCK_EX | (blocking ? 0 : LOCK_NB)) }) {
            case .processed: return true
            case .wouldBlock: return false
            }
        } catch {
            throw StoreError.writeFailed(path: path, reason: "cannot lock: \(error.reason)")
        }
    }

    private func release() {
        if descriptor >= 0 { _ = flock(descriptor, LOCK_UN) }
    }
}
