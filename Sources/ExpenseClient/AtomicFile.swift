import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file written whole or not at all, private to its owner: the content goes to a new temporary file beside
/// the target (mode 0600, `O_EXCL`, so the umask never widens it and nothing else is opened by mistake),
/// is fsynced, renamed over the target, and the directory is fsynced so the rename survives a crash.
/// A reader sees the old file or the new one, never half of one.
package enum AtomicFile {
    /// Why the file could not be written.
    package struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// The file (or directory) the failing call was about.
        package var path: String
        /// The system's description of the error.
        package var reason: String
        package var description: String { "cannot write \(path): \(reason)" }
    }

    /// Replaces `path` with what `body` writes to the descriptor it is given (0600 whatever the umask).
    /// - Returns: what `body` returns.
    /// - Throws: ``Failure``, or what `body` throws (the temporary file is then removed, `path` untouched).
    package static func replace<T>(_ path: String, _ body: (Int32) throws -> T) throws -> T {
        let temporary = path + ".tmp-\(getpid())"
        unlink(temporary) // a leftover of a killed run with the same pid; ours to remove
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(path) }
        var isOpen = true
        var renamed = false
        defer {
            if isOpen { close(descriptor) }
            if !renamed { unlink(temporary) }
        }
        let result = try body(descriptor)
        guard fsync(descriptor) == 0 else { throw failure(path) }
        isOpen = false
        guard close(descriptor) == 0 else { throw failure(path) }
        guard rename(temporary, path) == 0 else { throw failure(path) }
        renamed = true
        let directory = (path as NSString).deletingLastPathComponent
        let directoryDescriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            defer { close(directoryDescriptor) }
            guard fsync(directoryDescriptor) == 0 else { throw failure(directory) }
        }
        return result
    }

    private static func failure(_ path: String) -> Failure {
        Failure(path: path, reason: String(cString: strerror(errno)))
    }
}
