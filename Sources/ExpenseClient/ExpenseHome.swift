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
    /// - Throws: ``StoreError``.
    package func openStore() throws -> any ExpenseStore {
        try FileSystem.ensureDirectory(path)
        switch backend {
        case .sqlite: return try SQLiteExpenseStore(path: cachePath)
        case .json: return try JSONFileExpenseStore(path: cachePath)
        }
    }
}
