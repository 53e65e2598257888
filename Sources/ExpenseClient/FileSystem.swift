import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The few file operations the stores need, done with the system calls whose durability we rely on.
enum FileSystem {
    /// Creates `path` (and its parents) with mode 0700 if it does not exist.
    static func ensureDirectory(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw StoreError.unreadable(path: path, reason: "it is not a directory")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError.writeFailed(path: path, reason: "cannot create the directory: \(error.localizedDescription)")
        }
    }

    /// Creates an empty file with mode 0600 if none exists, so that SQLite (which copies the database file's
    /// mode to its -wal and -shm files) never makes a world-readable cache.
    static func createPrivateFileIfMissing(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
        } else if errno != EEXIST {
            throw StoreError.writeFailed(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// Replaces `path` with `data` atomically and durably: write a temporary file beside it (mode 0600),
    /// fsync it, rename it over `path`, then fsync the directory so the rename itself survives a crash.
    /// A reader sees the old file or the new one, never half of one.
    static func writeAtomically(_ data: Data, to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(path) }
        var ok = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0 { if errno == EINTR { continue }; return false }
                offset += written
            }
            return true
        }
        ok = ok && fsync(descriptor) == 0
        let error = failure(path)
        close(descriptor)
        guard ok, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw ok ? failure(path) : error
        }
        let directory = (path as NSString).deletingLastPathComponent
        let directoryDescriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            defer { close(directoryDescriptor) }
            guard fsync(directoryDescriptor) == 0 else { throw failure(directory) }
        }
    }

    private static func failure(_ path: String) -> StoreError {
        .writeFailed(path: path, reason: String(cString: strerror(errno)))
    }
}
