/// A failure reported by libpq or the PostgreSQL server, with the server's SQLSTATE when it sent one.
///
/// SQLSTATE codes are named once here (``SQLState``); callers match on them, never on messages.
public struct PostgresError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Kind: String, Sendable, Hashable {
        /// The connection could not be made, or was lost (the server is down, restarting, or ended the backend).
        case connection
        /// The server refused a statement; ``sqlState`` says why.
        case statement
    }

    public let kind: Kind
    /// The five-character SQLSTATE (`23505`), or `nil` when libpq reported the failure itself.
    public let sqlState: String?
    /// libpq's or the server's message (never contains the password: libpq does not echo it).
    public let message: String

    public init(kind: Kind, sqlState: String?, message: String) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
    }

    /// Whether the server is (or was) unreachable: the connection failed, was lost, or the server is shutting
    /// down or starting up (SQLSTATE classes 08 and 57P). A caller may retry once the connection is back.
    public var isConnectionFailure: Bool {
        if kind == .connection { return true }
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || sqlState.hasPrefix("57P") || sqlState == SQLState.readOnlyTransaction
    }

    public var description: String {
        "postgres \(kind.rawValue) error\(sqlState.map { " \($0)" } ?? ""): \(message)"
    }

    /// The SQLSTATE codes this package tells apart.
    public enum SQLState {
        public static let uniqueViolation = "23505"
        public static let serializationFailure = "40001"
        public static let deadlockDetected = "40P01"
        public static let undefinedTable = "42P01"
        public static let duplicateSchema = "42P06"
        public static let adminShutdown = "57P01"
        /// A write on a hot standby (after a failover, until the connection reaches the new primary).
        public static let readOnlyTransaction = "25006"
    }
}
