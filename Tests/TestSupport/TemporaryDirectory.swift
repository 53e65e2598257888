import Foundation

/// A fresh directory under the system's temporary directory, the one temporary-directory helper of every test
/// target. It is removed with everything in it by ``remove()`` or, at the latest, when the value is released.
///
/// - Important: ARC may release a value right after its last use, so a test that goes on using ``path`` (a
///   store open in it, a daemon serving from it) keeps the directory with `defer { directory.remove() }`.
public final class TemporaryDirectory: Sendable {
    /// The directory's absolute path.
    public let path: String

    /// Creates `<tmp>/<label>-<uuid>`.
    /// - Parameter label: what the directory is for, so a leftover one can be traced to its tests.
    public init(_ label: String = "expense-tests") throws {
        path = NSTemporaryDirectory() + label + "-" + UUID().uuidString.lowercased()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `name` in the directory.
    /// - Returns: the file's path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        let file = file(name)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Removes the directory and everything in it (again: nothing happens).
    public func remove() { try? FileManager.default.removeItem(atPath: path) }

    deinit { remove() }
}
