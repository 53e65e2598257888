import CSQLite

/// One connection to a SQLite database file.
///
/// - Important: A connection is used by one owner at a time (an actor, or one thread). It is deliberately not
///   `Sendable`; the owner serialises every call, which is what SQLite's default threading mode expects.
public final class SQLiteConnection {
    let handle: OpaquePointer
    /// The file this connection opened, or `:memory:`.
    public let path: String
    private var statements: [String: SQLiteStatement] = [:]
    /// ``cached(literal:)``'s statements by the address of their SQL literal.
    private var literalStatements: [UnsafeRawPointer: SQLiteStatement] = [:]
    /// The WAL's frames after this connection's latest commit, once ``trackWALFrames()`` is on
    /// (`SQLiteConnection+WAL.swift`).
    public internal(set) var walFrameCount = 0

    /// How to open the file.
    public enum Mode: Sendable {
        /// Read and write, creating the file if it does not exist.
        case create
        /// Read and write an existing file.
        case readWrite
        /// Read an existing file.
        case readOnly
    }

    /// Opens (or creates) the database at `path`. `:memory:` opens a private in-memory database.
    /// - Throws: ``SQLiteError`` naming the file.
    public init(path: String, mode: Mode = .create) throws {
        _ = Self.processConfiguration
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .create: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        }
        var connection: OpaquePointer?
        let result = sqlite3_open_v2(path, &connection, flags, nil)
        guard result == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(result))
            sqlite3_close_v2(connection)
            throw SQLiteError(code: SQLiteError.ResultCode(rawValue: result), message: message, path: path)
        }
        self.handle = connection
        self.path = path
        sqlite3_busy_timeout(connection, 5_000)
    }

    /// SQLite's process-wide settings, made once before the process opens its first database: memory statistics off
    /// (nothing reads them, and the mutex they take around every allocation cost ~1.2k instructions per mutation of
    /// a 500-mutation push).
    private static let processConfiguration: Void = { _ = csqlite_disable_memory_statistics() }()

    deinit {
        literalStatements.removeAll()
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more SQL statements that take no parameters (schema, pragmas).
    public func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        guard result == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw SQLiteError(code: SQLiteError.ResultCode(rawValue: sqlite3_extended_errcode(handle)), message: message, path: path, sql: sql)
        }
    }

    /// A new prepared statement, owned by the caller.
    public func prepare(_ sql: String) throws -> SQLiteStatement {
        try SQLiteStatement(connection: self, sql: sql)
    }

    /// The prepared statement for `sql`, prepared on first use and reused after that.
    public func cached(_ sql: String) throws -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        let statement = try prepare(sql)
        statements[sql] = statement
        return statement
    }

    /// ``cached(_:)`` for SQL written as a literal, found by the literal's address instead of by hashing and
    /// comparing its text: for the statements a push runs once per row (`SQLiteLedgerStore`), where hashing the
    /// SQL cost about a tenth of the insert. The same statement object as `cached(sql.description)` returns.
    public func cached(literal sql: StaticString) throws -> SQLiteStatement {
        guard sql.hasPointerRepresentation else { return try cached(sql.description) }
        let key = UnsafeRawPointer(sql.utf8Start)
        if let statement = literalStatements[key] { return statement }
        let statement = try cached(sql.description)
        literalStatements[key] = statement
        return statement
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`; any error rolls everything back and is rethrown.
    /// When COMMIT itself fails the transaction is rolled back and the commit's error thrown: nothing is half-kept.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try cached(literal: "BEGIN IMMEDIATE").run()
        do {
            let value = try body()
            try cached(literal: "COMMIT").run()
            return value
        } catch {
            if sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// `PRAGMA user_version`, the schema version.
    public var userVersion: Int {
        get throws { try cached("PRAGMA user_version").first { $0.int(0) } ?? 0 }
    }

    /// Brings the schema up to `migrations.count` by running, each in its own transaction together with
    /// the new `user_version`, every migration not yet applied. Shipped migrations are never edited: add one.
    /// - Parameter steps: Swift run after migration `index`'s SQL, in its transaction, for conversions SQL cannot
    ///   spell (a failure rolls the migration back with it, so it runs again at the next open).
    /// - Throws: ``SQLiteError``; also when the file's version is newer than this program knows.
    public func migrate(_ migrations: [String], steps: [Int: (SQLiteConnection) throws -> Void] = [:]) throws {
        let current = try userVersion
        guard current <= migrations.count else {
            throw SQLiteError(code: .error, message:
                "schema version \(current) is newer than this program understands (\(migrations.count)); upgrade the program",
                path: path)
        }
        for version in current..<migrations.count {
            try transaction {
                try execute(migrations[version])
                try steps[version]?(self)
                try execute("PRAGMA user_version = \(version + 1)")
            }
        }
    }

    /// Runs `body` with a page cache of at most `kibibytes`, then gives the connection back the size it had
    /// (`PRAGMA cache_size`). Shrinking the cache frees the pages over the new size.
    @inlinable public func withPageCache<T>(kibibytes: Int, _ body: () throws -> T) throws -> T {
        let own = try prepare("PRAGMA cache_size").first { $0.int64(0) } ?? -2000
        try execute("PRAGMA cache_size = -\(kibibytes)")
        defer { try? execute("PRAGMA cache_size = \(own)") }
        return try body()
    }

    /// Bytes of heap the connection's page cache holds now (`SQLITE_DBSTATUS_CACHE_USED`).
    public var pageCacheBytes: Int {
        var current: Int32 = 0, highwater: Int32 = 0
        sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_USED, &current, &highwater, 0)
        return Int(current)
    }

    /// `PRAGMA quick_check` (or `integrity_check` when `full`): `nil` when the file is sound, else SQLite's report.
    public func check(full: Bool = false) throws -> String? {
        let lines = try prepare(full ? "PRAGMA integrity_check" : "PRAGMA quick_check").map([]) { $0.text(0) }
        return lines == ["ok"] ? nil : lines.joined(separator: "; ")
    }

    /// Copies the whole database, consistently, into a new file at `destination` with SQLite's online
    /// backup API, while other connections may keep writing.
    public func backup(to destination: String) throws {
        let target = try SQLiteConnection(path: destination, mode: .create)
        guard let backup = sqlite3_backup_init(target.handle, "main", handle, "main") else {
            throw target.error(sqlite3_errcode(target.handle), sql: nil)
        }
        var result: Int32
        repeat {
            result = sqlite3_backup_step(backup, 256)
            if result == SQLITE_BUSY || result == SQLITE_LOCKED { sqlite3_sleep(10) }
        } while result == SQLITE_OK || result == SQLITE_BUSY || result == SQLITE_LOCKED
        sqlite3_backup_finish(backup)
        guard result == SQLITE_DONE else { throw target.error(result, sql: nil) }
    }

    func error(_ result: Int32, sql: String?) -> SQLiteError {
        let extended = sqlite3_extended_errcode(handle)
        return SQLiteError(code: .init(rawValue: extended != 0 ? extended : result),
                           message: String(cString: sqlite3_errmsg(handle)), path: path, sql: sql)
    }
}
