import Foundation
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// The few file operations the stores need, done with the system calls whose durability we rely on.
enum FileSystem {
    /// Creates `path` (and its parents) with mode 0700 if it does not exist.
    static func ensureDirectory(_ path: String) throws {
        do throws(PrivateDirectory.Failure) {
            try PrivateDirectory.make(path)
        } catch .notADirectory(let place) {
            throw StoreError.unreadable(path: place, reason: "it is not a directory")
        } catch .failed(_, let error) {
            throw StoreError.failure(error.errno, path: path, needed: "to create it (its parent must be writable)", otherwise: {
                .writeFailed(path: $0, reason: "cannot create the directory: \($1)")
            })
        }
    }

    /// Creates an empty file with mode 0600 if none exists, so that SQLite (which copies the database file's
    /// mode to its -wal and -shm files) never makes a world-readable cache.
    static func createPrivateFileIfMissing(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
        } else if errno != EEXIST {
            throw StoreError.failure(errno, path: path, needed: "to create it in a directory it may write", otherwise: StoreError.writeFailed)
        }
    }

    /// Replaces `path` with `data` atomically and durably: write a temporary file beside it (mode 0600),
    /// fsync it, rename it over `path`, then fsync the directory so the rename itself survives a crash.
    /// A reader sees the old file or the new one, never half of one.
    /// (``AtomicFile``, the one atomic replacement, with the store's errors.)
    static func writeAtomically(_ data: Data, to path: String) throws {
        do {
            try AtomicFile.write(data, to: path)
        } catch let failure as AtomicFile.Failure {
            throw StoreError.failure(failure.errno, path: failure.path, needed: "to write it and create files in its directory",
                                     otherwise: StoreError.writeFailed)
        }
    }
}

extension FileSystem {
    /// What tells one version of a file from another: which inode the path names and that inode's size and
    /// change times. Every writer replaces the cache by a rename (``writeAtomically(_:to:)``), so a new version
    /// is a new inode; while a reader keeps the version it loaded open, that inode cannot be reused for another.
    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: timespec
        var changed: timespec

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            modified = status.st_mtim
            changed = status.st_ctim
        }

        static func == (a: FileIdentity, b: FileIdentity) -> Bool {
            a.device == b.device && a.inode == b.inode && a.size == b.size
                && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
                && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
        }
    }

    /// The identity of the file `path` names now, or `nil` when there is none.
    static func identity(of path: String) -> FileIdentity? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return FileIdentity(status)
    }

    /// The identity of an open file.
    static func identity(of descriptor: Int32) -> FileIdentity? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return FileIdentity(status)
    }

    /// Every byte of an open file, from its start.
    /// - Throws: ``StoreError/unreadable(path:reason:)`` naming `path`.
    static func readAll(_ descriptor: Int32, path: String) throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset: off_t = 0
        while true {
            let count: Int
            do throws(SystemCallError) {
                count = try syscall(where: "pread") { buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) } }
            } catch {
                throw StoreError.unreadable(path: path, reason: error.reason)
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
            offset += off_t(count)
        }
    }
}
