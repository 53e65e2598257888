import Foundation

/// The client's directory (`$EXPENSE_HOME`, default `~/.expense`, mode 0700) and the store inside it.
package struct ExpenseHome: Sendable {
    /// Which store implementation keeps the cache.
    package enum Backend: String, Sendable {
        /// `cache.sqlite`, the default.
        case sqlite
        /// `cache.json`, the simple whole-file store.
        case json
    }

    package let path: String
    package let backend: Backend

    /// The home named by `EXPENSE_HOME` (else `~/.expense`); `EXPENSE_STORE=json` selects the JSON store.
    package init(environment: [String: String]) {
        if let home = environment["EXPENSE_HOME"], !home.isEmpty {
            path = home
        } else {
            let user = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            path = (user as NSString).appendingPathComponent(".expense")
        }
        backend = environment["EXPENSE_STORE"].flatMap(Backend.init(rawValue:)) ?? .sqlite
    }

    package init(path: String, backend: Backend = .sqlite) {
        self.path = path
        self.backend = backend
    }

    /// The cache file of the chosen backend.
    package var cachePath: String {
        (path as NSString).appendingPathComponent(backend == .sqlite ? "cache.sqlite" : "cache.json")
    }

    /// Creates the directory if needed and opens the store.
    /// - Parameter readOnly: the command only reads: an existing cache is opened without write access, so one
    ///   the user may read but not write still works.
    /// - Throws: ``StoreError``.
    package func openStore(readOnly: Bool = false) throws -> any ExpenseStore {
        try FileSystem.ensureDirectory(path)
        switch backend {
        case .sqlite: return try SQLiteExpenseStore(path: cachePath, readOnly: readOnly)
        case .json: return try JSONFileExpenseStore(path: cachePath, readOnly: readOnly)
        }
    }

    /// A warning when the directory already exists with access for its group or others (it holds the token
    /// and every expense), naming its mode, like ssh does for a key file; `nil` when it is private or missing.
    /// The mode is not changed: the directory may be shared on purpose, and a tool that silently chmods a
    /// directory it did not create surprises its owner.
    package func modeWarning() -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let mode = attributes[.posixPermissions] as? Int, mode & 0o077 != 0 else { return nil }
        let octal = String(mode & 0o7777, radix: 8)
        return "Warning: \(path) has mode 0\(octal): others may read your expenses and token; run `chmod 700 \(path)`"
    }
}
