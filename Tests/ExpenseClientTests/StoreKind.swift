import ExpenseClient
import Foundation
import Testing

/// The three store implementations, for the parameterised contract suite.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
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

/// A fresh directory under the system's temporary directory, removed when the value is released.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "expense-client-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
