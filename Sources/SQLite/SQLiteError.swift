import CSQLite

/// A failure reported by SQLite, carrying its result code and message and the database file it concerns.
public struct SQLiteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// SQLite's extended result code (``ResultCode/busy``, ``ResultCode/corrupt``, ``ResultCode/ioerrFsync``, …);
    /// match it against a primary code with `case`: `case .constraint` matches every `SQLITE_CONSTRAINT_*`.
    public let code: ResultCode
    /// SQLite's message.
    public let message: String
    /// The database file, or `:memory:`.
    public let path: String
    /// The SQL being run, when there was one.
    public let sql: String?

    public init(code: ResultCode, message: String, path: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.sql = sql
    }

    /// The file is damaged or is not a database at all.
    public var isCorruption: Bool {
        switch code {
        case .corrupt, .notadb: true
        default: false
        }
    }

    /// The system or the file's mode refused a write (`SQLITE_READONLY*`, `SQLITE_PERM`, `SQLITE_AUTH`).
    public var isPermissionDenied: Bool {
        switch code {
        case .readonly, .perm, .auth: true
        default: false
        }
    }

    /// The file (or its journal) could not be opened (`SQLITE_CANTOPEN*`): missing, a directory, or refused.
    public var isCannotOpen: Bool { ResultCode.cantopen ~= code }

    /// SQLite's integer `sum` (or other integer arithmetic) overflowed Int64: SQLite reports it as a plain
    /// `SQLITE_ERROR` whose message says "integer overflow", and has no code of its own for it.
    public var isIntegerOverflow: Bool { ResultCode.error ~= code && message.contains("integer overflow") }

    public var description: String {
        var text = "SQLite error \(code) on \(path): \(message)"
        if let sql { text += " (in: \(sql.prefix(120)))" }
        return text
    }
}
