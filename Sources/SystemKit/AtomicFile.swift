#if canImport(Glibc)
import Glibc
#endif

/// The one atomic file replacement: a file written whole or not at all, private to its owner. The content goes
/// to a new temporary file beside the target (mode 0600, `O_EXCL`, so the umask never widens it and nothing else
/// is opened by mistake), is fsynced, renamed over the target, and the directory is fsynced so the rename
/// survives a crash. A reader sees the old file or the new one, never half of one.
///
/// Used for the client's JSON cache and token, `expense export --output`, and the daemon's ledger token files.
public enum AtomicFile {
    /// Why the file could not be written.
    public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// The file (or directory) the failing call was about.
        public var path: String
        /// The system's description of the error.
        public var reason: String
        /// The failing call's `errno` (0 when the failure was not a system call's).
        public var errno: Int32
        public var description: String { "cannot write \(path): \(reason)" }

        public init(path: String, _ error: SystemCallError) {
            self.path = path
            self.reason = error.reason
            self.errno = error.errno
        }
    }

    /// Replaces `path` with what `body` writes to the descriptor it is given (0600 whatever the umask).
    /// - Parameters:
    ///   - beforeRename: runs after the content is durable and before the rename; what it throws leaves `path`
    ///     untouched (the daemon links a new ledger's database into place here, so a token file never names a
    ///     ledger that is not there).
    /// - Returns: what `body` returns.
    /// - Throws: ``Failure``, or what `body` or `beforeRename` throws (the temporary file is then removed, `path`
    ///   untouched).
    public static func replace<T>(_ path: String, beforeRename: () throws -> Void = {},
                                   _ body: (Int32) throws -> T) throws -> T {
        let temporary = path + ".tmp-\(getpid())"
        unlink(temporary) // a leftover of a killed run with the same pid; ours to remove
        let descriptor: Int32
        do throws(SystemCallError) {
            descriptor = try syscall(where: "open") { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        } catch {
            throw Failure(path: path, error)
        }
        var isOpen = true
        var renamed = false
        defer {
            if isOpen { close(descriptor) }
            if !renamed { unlink(temporary) }
        }
        let result = try body(descriptor)
        do throws(SystemCallError) {
            _ = try syscall(where: "fsync") { fsync(descriptor) }
            isOpen = false
            // Never retried: on Linux the descriptor is gone even when close(2) says EINTR (as swift-nio's
            // `Posix.close` reads it).
            if close(descriptor) != 0, errno != EINTR { throw SystemCallError(call: "close", errno: errno) }
        } catch {
            throw Failure(path: path, error)
        }
        try beforeRename()
        do throws(SystemCallError) {
            _ = try syscall(where: "rename") { rename(temporary, path) }
        } catch {
            throw Failure(path: path, error)
        }
        renamed = true
        try syncDirectory(containing: path)
        return result
    }

    /// Replaces `path` with `bytes` (see ``replace(_:beforeRename:_:)``).
    /// - Throws: ``Failure``, or what `beforeRename` throws.
    public static func write(_ bytes: some Sequence<UInt8>, to path: String, beforeRename: () throws -> Void = {}) throws {
        try replace(path, beforeRename: beforeRename) { descriptor in
            do throws(SystemCallError) {
                try writeAll(descriptor, bytes)
            } catch {
                throw Failure(path: path, error)
            }
        }
    }

    /// Fsyncs the directory that holds `path`, so a rename or a link there survives a crash.
    /// - Throws: ``Failure`` when the directory cannot be synced (one that cannot be opened is passed over).
    public static func syncDirectory(containing path: String) throws(Failure) {
        let directory = Self.directory(of: path)
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryDescriptor >= 0 else { return }
        defer { close(directoryDescriptor) }
        do throws(SystemCallError) {
            _ = try syscall(where: "fsync") { fsync(directoryDescriptor) }
        } catch {
            throw Failure(path: directory, error)
        }
    }

    /// The directory part of `path` (`.` for a bare name).
    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }
}
