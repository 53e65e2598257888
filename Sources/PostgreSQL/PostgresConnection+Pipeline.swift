import CLibPQ
#if canImport(Glibc)
import Glibc
#endif

/// One statement of a ``PostgresConnection/pipeline(_:)``: SQL with `$1, $2, …` and its parameters.
public struct PostgresStatement: Sendable {
    public let sql: String
    public let parameters: [PostgresValue]

    public init(_ sql: String, _ parameters: [PostgresValue] = []) {
        self.sql = sql
        self.parameters = parameters
    }
}

/// What a connection sent: statements, and the round trips it waited for (one per ``PostgresConnection/execute(_:)``
/// or ``PostgresConnection/query(_:_:)``, one per whole ``PostgresConnection/pipeline(_:)``).
public struct PostgresCounters: Sendable, Equatable {
    public private(set) var statements = 0
    public private(set) var roundTrips = 0

    public init() {}

    mutating func count(statements count: Int) {
        statements += count
        roundTrips += 1
    }
}

extension PostgresConnection {
    /// Sends `statements` together (libpq pipeline mode) and waits once for all their results: one round trip
    /// instead of one per statement. The server runs them in order, exactly as if sent one by one; after the
    /// first that fails it skips the rest (so a `COMMIT` at the end never runs after a failed statement: the
    /// transaction is left aborted for the caller's `ROLLBACK`), and that first error is thrown.
    ///
    /// The connection is non-blocking while the batch goes out, reading what the server answers meanwhile,
    /// so a batch larger than both socket buffers cannot deadlock (``../shared/notes/postgres.md``).
    /// - Returns: each statement's result, in order.
    /// - Throws: ``PostgresError``; when the connection is left in an unknown state it is dropped (kind
    ///   `.connection`), and the owner's next reconnect starts afresh.
    public func pipeline(_ statements: [PostgresStatement]) throws -> [PostgresResult] {
        try pipeline(statements, thenUnchecked: [])
    }

    /// ``pipeline(_:)`` followed, in the same round trip, by `unchecked` statements whose outcome does not
    /// matter to the caller (a `pg_notify` after `COMMIT`): they run only when every statement before them
    /// succeeded, their own errors are ignored, and a connection lost while only their answers are missing
    /// drops the connection (the next use reconnects) without failing what was already answered.
    /// - Returns: the results of `statements` only, in order.
    public func pipeline(_ statements: [PostgresStatement], thenUnchecked unchecked: [PostgresStatement]) throws -> [PostgresResult] {
        let connection = try live()
        counters.count(statements: statements.count + unchecked.count)
        do {
            let (results, complete) = try runPipeline(statements + unchecked, checked: statements.count, connection)
            if !complete { dropConnection() }
            return results
        } catch let error as PostgresError where error.kind == .connection {
            dropConnection()
            throw error
        }
    }

    private func dropConnection() {
        PQfinish(handle)
        handle = nil
    }

    /// Runs the pipeline; the first `checked` statements' errors are thrown, the others' ignored. `complete` is
    /// false when the connection failed after every checked result had been read.
    private func runPipeline(_ statements: [PostgresStatement], checked: Int,
                             _ connection: OpaquePointer) throws -> (results: [PostgresResult], complete: Bool) {
        guard PQenterPipelineMode(connection) == 1, PQsetnonblocking(connection, 1) == 0 else { throw lost(connection) }
        for statement in statements {
            let sent = PostgresParameters.with(statement.parameters) { count, types, values, lengths, formats in
                PQsendQueryParams(connection, statement.sql, count, types, values, lengths, formats, 0)
            }
            guard sent == 1 else { throw lost(connection) }
        }
        guard PQpipelineSync(connection) == 1 else { throw lost(connection) }
        try flushReadingMeanwhile(connection)
        guard PQsetnonblocking(connection, 0) == 0 else { throw lost(connection) }

        var results: [PostgresResult] = []
        results.reserveCapacity(checked)
        var firstError: (any Error)?
        for index in statements.indices {
            guard let result = PQgetResult(connection) else {
                if index >= checked && firstError == nil { return (results, false) }
                throw lost(connection)
            }
            if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
                PQclear(result)
            } else if index >= checked {
                _ = try? check(result, connection)
            } else {
                do { results.append(try check(result, connection)) } catch { firstError = firstError ?? error }
            }
            // Each statement's results end with a NULL.
            while let extra = PQgetResult(connection) { PQclear(extra) }
        }
        let sync = PQgetResult(connection)
        let synced = sync.map { PQresultStatus($0) == PGRES_PIPELINE_SYNC } ?? false
        PQclear(sync)
        guard synced, PQexitPipelineMode(connection) == 1 else {
            if firstError == nil && checked < statements.count { return (results, false) }
            throw lost(connection)
        }
        if let firstError { throw firstError }
        return (results, true)
    }

    /// Sends what libpq has queued, consuming the server's answers whenever the socket will not take more.
    private func flushReadingMeanwhile(_ connection: OpaquePointer) throws {
        while true {
            let flushed = PQflush(connection)
            if flushed == 0 { return }
            guard flushed == 1 else { throw lost(connection) }
            var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN | POLLOUT), revents: 0)
            let ready = poll(&descriptor, 1, -1)
            if ready < 0 && errno != EINTR { throw lost(connection) }
            if descriptor.revents & Int16(POLLIN) != 0 && PQconsumeInput(connection) != 1 { throw lost(connection) }
        }
    }

    private func lost(_ connection: OpaquePointer) -> PostgresError {
        let message = String(cString: PQerrorMessage(connection)).trimmingTrailingNewlines
        return PostgresError(kind: .connection, sqlState: nil, message: message.isEmpty ? "the pipeline failed" : message)
    }
}
