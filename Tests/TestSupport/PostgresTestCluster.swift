import Foundation

/// The PostgreSQL cluster the tests may use: `EXPENSE_TEST_POSTGRES`, a libpq connection string (`.ci/run`
/// starts a throwaway cluster and sets it).
///
/// Without it the PostgreSQL tests skip, saying so in one line (``skipReason``); under `CI=true` they run
/// anyway and fail, so CI can never pass by skipping them.
public enum PostgresTestCluster {
    /// The connection string, or `nil` when none is given.
    public static var conninfo: String? {
        guard let value = ProcessInfo.processInfo.environment["EXPENSE_TEST_POSTGRES"], !value.isEmpty else { return nil }
        return value
    }

    /// Whether the PostgreSQL tests run: a cluster is given, or this is CI (where a missing one is a failure).
    public static var enabled: Bool { conninfo != nil || ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Why they are skipped.
    public static let skipReason =
        "EXPENSE_TEST_POSTGRES (a libpq conninfo) is not set: the PostgreSQL tests are skipped (.ci/run starts a cluster)"

    /// The connection string, or an error saying it is missing (under CI).
    public static func required() throws -> String {
        guard let conninfo else { throw Missing() }
        return conninfo
    }

    /// A fresh schema name for one test (`expense_test_…`), so tests share one database without seeing each other.
    public static func uniqueSchema() -> String {
        "expense_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String { "CI=true but EXPENSE_TEST_POSTGRES is not set: the PostgreSQL tests must run under CI" }
    }
}
