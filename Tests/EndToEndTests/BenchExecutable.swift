import Foundation
import Testing

/// The load generator, `expense-bench`, is built by the package in Benchmarks/ (its release build turns off a
/// runtime check the root package must not). `.ci/run` builds it and names it in `EXPENSE_BENCH`; locally its
/// tests skip until `swift build --package-path Benchmarks` has run, and fail under CI=true.
enum BenchExecutable {
    /// `EXPENSE_BENCH`, else Benchmarks/.build/debug/expense-bench of this checkout when it exists.
    static let path: String? = {
        if let named = ProcessInfo.processInfo.environment["EXPENSE_BENCH"], !named.isEmpty { return named }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let built = root.appendingPathComponent("Benchmarks/.build/debug/expense-bench").path
        return FileManager.default.isExecutableFile(atPath: built) ? built : nil
    }()

    /// Whether the bench's tests run: it is built, or CI=true (where its absence fails them).
    static let enabled = path != nil || ProcessInfo.processInfo.environment["CI"] == "true"
    static let skipReason: Comment = "expense-bench is not built: swift build --package-path Benchmarks (required under CI=true)"

    /// The bench's path, or a failure saying how to build it.
    static func required() throws -> String {
        guard let path else { throw MissingBench() }
        return path
    }

    struct MissingBench: Error, CustomStringConvertible {
        var description: String { "expense-bench is not built (swift build --package-path Benchmarks, or EXPENSE_BENCH=PATH), and CI=true" }
    }
}
