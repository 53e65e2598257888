import CSQLite

/// A failure reported by SQLite, carrying its result code and message and the database file it concerns.
public struct SQLiteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// SQLite's extended result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, `SQLITE_FULL`, …).
    public let code: Int32
    /// SQLite's message.
    public let message: String
    /// The database file, or `:memory:`.
    public let path: String
    /// The SQL being run, when there was one.
    public let sql: String?

    public init(code: Int32, message: String, path: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.sql = sql
    }

    /// The primary result code (the low byte of ``code``).
    public var primaryCode: Int32 { code & 0xff }

    /// The file is damaged or is not a database at all.
    public var isCorruption: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }

    /// The system or the file's mode refused a write (`SQLITE_READONLY*`, `SQLITE_PERM`, `SQLITE_AUTH`).
    public var isPermissionDenied: Bool {
        primaryCode == SQLITE_READONLY || primaryCode == SQLITE_PERM || primaryCode == SQLITE_AUTH
    }

    /// The file (or its journal) could not be opened (`SQLITE_CANTOPEN*`): missing, a directory, or refused.
    public var isCannotOpen: Bool { primaryCode == SQLITE_CANTOPEN }

    /// The disk is full or an I/O operation failed.
    public var isDiskTrouble: Bool { primaryCode == SQLITE_FULL || primaryCode == SQLITE_IOERR }

    public var description: String {
        var text = "SQLite error \(code) on \(path): \(message)"
        if let sql { text += " (in: \(sql.prefix(120)))" }
        return text
    }
}
