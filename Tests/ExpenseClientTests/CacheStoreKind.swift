import TestSupport
import ExpenseClient
import Foundation
import Testing

/// The three client cache stores (`expense`'s local store), for the parameterised contract suite; the daemon's
/// stores are ExpenseServerTests' ``LedgerStoreKind``.
enum CacheStoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory, json, sqlite

    var testDescription: String { rawValue }

    /// Whether reopening the same location sees the same data.
    var isPersistent: Bool { self != .memory }

    func open(in directory: TemporaryDirectory) throws -> any ExpenseStore {
        switch self {
        case .memory: InMemoryExpenseStore()
        case .json: try JSONFileExpenseStore(path: directory.path + "/cache.json")
        case .sqlite: try SQLiteExpenseStore(path: directory.path + "/cache.sqlite")
        }
    }
}
