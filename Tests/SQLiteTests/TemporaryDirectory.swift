import Foundation

/// A fresh directory under the system's temporary directory, removed by ``remove()``.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// SQLite's result codes the tests look for (from sqlite3.h; stable across versions).
enum ResultCode {
    static let error: Int32 = 1
    static let constraint: Int32 = 19
    static let constraintUnique: Int32 = 2067  // SQLITE_CONSTRAINT | (8 << 8)
    static let corrupt: Int32 = 11
    static let notADatabase: Int32 = 26
    static let cantOpen: Int32 = 14
    static let readOnly: Int32 = 8
}
