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
            // Foundation's error text is for developers (NSCocoaErrorDomain …): say what the system said, for people.
            let made = mkdir(path, 0o700) == 0 ? 0 : errno
            if made == 0 || made == EEXIST { return }
            throw StoreError.failure(made, path: path, needed: "to create it (its parent must be writable)", otherwise: {
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
        StoreError.failure(errno, path: path, needed: "to write it and create files in its directory", otherwise: StoreError.writeFailed)
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
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StoreError.unreadable(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
            offset += off_t(count)
        }
    }
}
