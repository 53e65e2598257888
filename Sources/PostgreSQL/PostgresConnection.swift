import CLibPQ
#if canImport(Glibc)
import Glibc
#endif

/// One connection to a PostgreSQL server through the machine's libpq.
///
/// - Important: A connection is used by one owner at a time (a ledger's thread, or one thread), as libpq
///   requires: it is deliberately not `Sendable`. Every value is bound as a parameter (``PostgresValue``),
///   never spliced into SQL text.
public final class PostgresConnection {
    /// The libpq connection; `nil` while down (``PostgresConnection+Pipeline.swift`` drops it when a batch leaves it unusable).
    var handle: OpaquePointer?
    /// The connection string as given (it may hold a password: never log it; log ``redactedDescription``).
    private let conninfo: String
    /// Where the connection goes, without its password (for logs and errors).
    public let redactedDescription: String
    /// The schema every statement uses first (`search_path`), set again after each reconnect; `nil`: the
    /// server's default.
    public let schema: String?
    /// Statements sent so far (each ``execute(_:)``, ``query(_:_:)`` and each statement of a ``pipeline(_:)``),
    /// and round trips waited for: what a push costs in messages, for tests to pin (reading one value at a time, a
    /// 500-mutation push once took 1,011 round trips).
    public internal(set) var counters = PostgresCounters()

    /// Connects with a libpq keyword/value string (`host=… dbname=…`) or a `postgresql://` URI.
    ///
    /// A `connect_timeout` of 5 s applies unless the string sets its own.
    /// - Parameter schema: the schema to use (the tests give each test one of its own).
    /// - Throws: ``PostgresError`` of kind `.connection`.
    public init(_ conninfo: String, schema: String? = nil) throws {
        self.conninfo = conninfo
        self.schema = schema
        self.redactedDescription = try Self.redacted(conninfo)
        handle = try Self.connect(conninfo)
        try useSchema()
    }

    private func useSchema() throws {
        guard let schema else { return }
        try execute("SET search_path TO " + quotedIdentifier(schema))
    }

    /// `identifier` quoted for SQL text (`"a""b"`), for names that cannot be parameters (schemas).
    public func quotedIdentifier(_ identifier: String) -> String {
        "\"" + identifier.replacingAll("\"", with: "\"\"") + "\""
    }

    deinit { PQfinish(handle) }

    private static func connect(_ conninfo: String) throws -> OpaquePointer {
        // expand_dbname: the `dbname` value is itself a connection string or URI; keywords before it are
        // defaults it overrides.
        let keywords = ["connect_timeout", "application_name", "dbname"]
        let values = ["5", "expensed", conninfo]
        let connection: OpaquePointer? = withCStrings(keywords) { keywordPointers in
            withCStrings(values) { valuePointers in
                PQconnectdbParams(keywordPointers, valuePointers, 1)
            }
        }
        guard let connection else { throw PostgresError(kind: .connection, sqlState: nil, message: "out of memory") }
        // The server's NOTICEs (`relation … already exists, skipping`) are not errors: libpq would print them.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection)).trimmingTrailingNewlines
            PQfinish(connection)
            throw PostgresError(kind: .connection, sqlState: nil, message: message)
        }
        return connection
    }

    /// Whether the connection is up (as far as libpq knows: a lost one shows after the next statement fails).
    public var isConnected: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// Drops the connection and makes a new one with the same settings.
    /// - Throws: ``PostgresError`` of kind `.connection`; the connection stays down.
    public func reconnect() throws {
        PQfinish(handle)
        handle = nil
        handle = try Self.connect(conninfo)
        try useSchema()
    }

    /// Runs one or more statements without parameters (schema, `BEGIN`, `LISTEN`).
    /// - Throws: ``PostgresError``.
    @discardableResult
    public func execute(_ sql: String) throws -> PostgresResult {
        let connection = try live()
        counters.count(statements: 1)
        return try check(PQexec(connection, sql), connection)
    }

    /// Runs one statement with parameters `$1, $2, …`.
    /// - Throws: ``PostgresError``.
    @discardableResult
    public func query(_ sql: String, _ parameters: [PostgresValue] = []) throws -> PostgresResult {
        let connection = try live()
        counters.count(statements: 1)
        let result = PostgresParameters.with(parameters) { count, types, values, lengths, formats in
            PQexecParams(connection, sql, count, types, values, lengths, formats, 0)
        }
        return try check(result, connection)
    }

    /// Runs `body` between `BEGIN` and `COMMIT`; any error rolls back (when the connection still works) and
    /// is rethrown. `COMMIT` returning is the durability point.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            rollbackIfOpen()
            throw error
        }
    }

    /// Rolls back a transaction left open by an error; does nothing when none is open or the connection is down.
    public func rollbackIfOpen() {
        guard let handle, PQstatus(handle) == CONNECTION_OK, PQtransactionStatus(handle) != PQTRANS_IDLE else { return }
        PQclear(PQexec(handle, "ROLLBACK"))
    }

    /// Brings the schema up to `migrations.count`, each migration in its own transaction with the new version
    /// in `table` (created on first use in the current schema). Concurrent callers (several daemons starting
    /// at once) take turns on an advisory lock. Shipped migrations are never edited: add one. A migration's
    /// Swift step (``PostgresMigration/step``) runs after its SQL, in the same transaction.
    /// - Throws: ``PostgresError``; also when the schema is newer than this program knows.
    public func migrate(_ migrations: [PostgresMigration], table: String = "schema_version") throws {
        for _ in 0...migrations.count {
            let done: Bool = try transaction {
                try query("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.' || $1))", [.text(table)])
                try execute("CREATE TABLE IF NOT EXISTS \(table) (version integer NOT NULL)")
                let current = try query("SELECT max(version) FROM \(table)").first?.optionalInt64(0) ?? 0
                guard current <= migrations.count else {
                    throw PostgresError(kind: .statement, sqlState: nil, message:
                        "schema version \(current) is newer than this program understands (\(migrations.count)); upgrade the program")
                }
                guard current < migrations.count else { return true }
                let migration = migrations[Int(current)]
                try execute(migration.sql)
                try migration.step?(self)
                try query("DELETE FROM \(table)")
                try query("INSERT INTO \(table) (version) VALUES ($1)", [.integer(current + 1)])
                return false
            }
            if done { return }
        }
    }

    // MARK: - Notifications

    /// A notification delivered by the server (`NOTIFY channel, 'payload'`).
    public struct Notification: Sendable, Hashable {
        public let channel: String
        public let payload: String
    }

    /// Waits up to `timeout` seconds for notifications on the channels this connection listens to.
    /// - Returns: what arrived (empty after the timeout).
    /// - Throws: ``PostgresError`` of kind `.connection` when the connection is lost.
    public func notifications(timeout: Double) throws -> [Notification] {
        let connection = try live()
        var arrived = drainNotifications(connection)
        guard arrived.isEmpty else { return arrived }
        var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(timeout * 1000))
        if ready < 0 && errno != EINTR {
            throw PostgresError(kind: .connection, sqlState: nil, message: String(cString: strerror(errno)))
        }
        if ready > 0 {
            guard PQconsumeInput(connection) == 1, PQstatus(connection) == CONNECTION_OK else {
                throw PostgresError(kind: .connection, sqlState: nil,
                                    message: String(cString: PQerrorMessage(connection)).trimmingTrailingNewlines)
            }
            arrived = drainNotifications(connection)
        }
        return arrived
    }

    private func drainNotifications(_ connection: OpaquePointer) -> [Notification] {
        var arrived: [Notification] = []
        while let notify = PQnotifies(connection) {
            arrived.append(Notification(channel: String(cString: notify.pointee.relname),
                                        payload: String(cString: notify.pointee.extra)))
            PQfreemem(notify)
        }
        return arrived
    }

    // MARK: - Helpers

    func live() throws -> OpaquePointer {
        guard let handle else { throw PostgresError(kind: .connection, sqlState: nil, message: "not connected") }
        return handle
    }

    func check(_ result: OpaquePointer?, _ connection: OpaquePointer) throws -> PostgresResult {
        guard let result else {
            throw PostgresError(kind: .connection, sqlState: nil,
                                message: String(cString: PQerrorMessage(connection)).trimmingTrailingNewlines)
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY {
            return PostgresResult(result)
        }
        let sqlState = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        let message = String(cString: PQresultErrorMessage(result)).trimmingTrailingNewlines
        let lost = PQstatus(connection) != CONNECTION_OK
        throw PostgresError(kind: lost ? .connection : .statement, sqlState: sqlState, message: message)
    }

    /// `conninfo` as keyword/value pairs without the password (or any other secret libpq knows of), for logs.
    /// - Throws: ``PostgresError`` when libpq cannot parse it (its message names no secret).
    public static func redacted(_ conninfo: String) throws -> String {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &errorMessage) else {
            let message = errorMessage.map { String(cString: $0).trimmingTrailingNewlines } ?? "invalid connection string"
            PQfreemem(errorMessage)
            throw PostgresError(kind: .connection, sqlState: nil, message: message)
        }
        defer { PQconninfoFree(options) }
        var parts: [String] = []
        var option = options
        while let keyword = option.pointee.keyword {
            let name = String(cString: keyword)
            if let value = option.pointee.val, !["password", "sslpassword"].contains(name),
               !String(cString: option.pointee.dispchar).hasPrefix("*") {
                parts.append("\(name)=\(String(cString: value))")
            }
            option += 1
        }
        return parts.joined(separator: " ")
    }
}

/// Calls `body` with a NULL-terminated array of C strings for `strings`.
private func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
    let pointers = strings.map { strdup($0) }
    defer { for pointer in pointers { free(pointer) } }
    let constant: [UnsafePointer<CChar>?] = pointers.map { UnsafePointer($0) } + [nil]
    return constant.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { preconditionFailure("the array ends with nil: never empty") }
        return body(base)
    }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self { if character == target { result += replacement } else { result.append(character) } }
        return result
    }

    var trimmingTrailingNewlines: String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}
