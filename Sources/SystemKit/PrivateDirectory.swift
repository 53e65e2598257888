#if canImport(Glibc)
import Glibc
#endif

/// The one 0700-directory maker: the client's home, the daemon's data directory.
public enum PrivateDirectory {
    /// Why the directory could not be made.
    public enum Failure: Error, Hashable, Sendable {
        /// Something other than a directory is at `path`.
        case notADirectory(path: String)
        /// `mkdir` (or `stat`) failed at `path`, one of the directories on the way.
        case failed(path: String, SystemCallError)
    }

    /// Creates `path` and its missing parents with mode 0700 (the umask can only narrow it), the way
    /// `mkdir -p -m 0700` does; an existing directory is left as it is.
    /// - Throws: ``Failure``.
    public static func make(_ path: String) throws(Failure) {
        if try isDirectory(path) { return }
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if (try? isDirectory(prefix)) != true, mkdir(prefix, 0o700) != 0 {
                var error = errno
                if error == EEXIST {
                    // Made by another process meanwhile, or a file on the way (then the path cannot be made).
                    if (try? isDirectory(prefix)) == true { prefix += "/"; continue }
                    error = ENOTDIR
                }
                throw .failed(path: prefix, SystemCallError(call: "mkdir", errno: error))
            }
            prefix += "/"
        }
    }

    /// Whether `path` is a directory; `false` when nothing is there.
    /// - Throws: ``Failure/notADirectory(path:)`` when something else is there.
    public static func isDirectory(_ path: String) throws(Failure) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT { return false }
            throw .failed(path: path, SystemCallError(call: "stat", errno: errno))
        }
        guard status.st_mode & S_IFMT == S_IFDIR else { throw .notADirectory(path: path) }
        return true
    }
}
