import CSQLite

extension SQLiteError {
    /// A SQLite result code, primary or extended, named once here so that no other module writes SQLite's numbers
    /// (GRDB's `ResultCode` is the model).
    ///
    /// A primary code used as a pattern matches its extended codes too, so `case .constraint` matches
    /// ``constraintUnique``, while an extended code matches only itself:
    /// ```swift
    /// switch error.code {
    /// case .constraintUnique: …   // only SQLITE_CONSTRAINT_UNIQUE
    /// case .constraint: …         // any other SQLITE_CONSTRAINT_*
    /// default: …
    /// }
    /// ```
    public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The number from `sqlite3.h`.
        public let rawValue: Int32

        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The primary code of this code: itself for a primary code, the low byte of an extended one.
        public var primaryResultCode: ResultCode { ResultCode(rawValue: rawValue & 0xff) }

        /// Whether this is a primary code (no extended bits).
        public var isPrimary: Bool { self == primaryResultCode }

        /// The number, as SQLite's messages and ``SQLiteError/description`` show it.
        public var description: String { "\(rawValue)" }

        /// A primary `pattern` matches every code with that primary code; an extended one matches only itself.
        public static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
            pattern.isPrimary ? pattern == code.primaryResultCode : pattern == code
        }

        /// Matches a thrown ``SQLiteError`` whose code matches `pattern`: `catch SQLiteError.ResultCode.constraint`.
        public static func ~= (pattern: ResultCode, error: any Error) -> Bool {
            guard let error = error as? SQLiteError else { return false }
            return pattern ~= error.code
        }

        // Primary result codes.
        /// `SQLITE_OK`.
        public static let ok = ResultCode(rawValue: SQLITE_OK)
        /// `SQLITE_ERROR`: a generic error, such as an SQL error or SQLite's integer `sum` overflowing.
        public static let error = ResultCode(rawValue: SQLITE_ERROR)
        /// `SQLITE_PERM`: access permission denied.
        public static let perm = ResultCode(rawValue: SQLITE_PERM)
        /// `SQLITE_BUSY`: the database file is locked by another connection.
        public static let busy = ResultCode(rawValue: SQLITE_BUSY)
        /// `SQLITE_LOCKED`: a table is locked within the same connection.
        public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
        /// `SQLITE_READONLY`: an attempt to write a read-only database.
        public static let readonly = ResultCode(rawValue: SQLITE_READONLY)
        /// `SQLITE_IOERR`: an I/O operation failed.
        public static let ioerr = ResultCode(rawValue: SQLITE_IOERR)
        /// `SQLITE_CORRUPT`: the database file is damaged.
        public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
        /// `SQLITE_FULL`: the disk (or the database's size limit) is full.
        public static let full = ResultCode(rawValue: SQLITE_FULL)
        /// `SQLITE_CANTOPEN`: the file (or its journal) cannot be opened.
        public static let cantopen = ResultCode(rawValue: SQLITE_CANTOPEN)
        /// `SQLITE_CONSTRAINT`: a constraint was violated.
        public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
        /// `SQLITE_AUTH`: refused by the authoriser.
        public static let auth = ResultCode(rawValue: SQLITE_AUTH)
        /// `SQLITE_RANGE`: a parameter index out of range.
        public static let range = ResultCode(rawValue: SQLITE_RANGE)
        /// `SQLITE_NOTADB`: the file is not a database.
        public static let notadb = ResultCode(rawValue: SQLITE_NOTADB)

        // Extended result codes (sqlite3.h's macros for them are not imported into Swift).
        /// `SQLITE_IOERR_FSYNC`: an fsync failed.
        public static let ioerrFsync = ResultCode(rawValue: SQLITE_IOERR | (4 << 8))
        /// `SQLITE_CONSTRAINT_PRIMARYKEY`: a primary key is not unique.
        public static let constraintPrimaryKey = ResultCode(rawValue: SQLITE_CONSTRAINT | (6 << 8))
        /// `SQLITE_CONSTRAINT_UNIQUE`: a unique index (or constraint) is violated.
        public static let constraintUnique = ResultCode(rawValue: SQLITE_CONSTRAINT | (8 << 8))
    }
}
