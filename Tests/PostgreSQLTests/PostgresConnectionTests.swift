import Foundation
import PostgreSQL
import Testing
import TestSupport

/// The libpq wrapper against the test cluster (``TestSupport/PostgresTestCluster``), each test in a schema of
/// its own.
@Suite(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
struct PostgresConnectionTests {
    /// A connection in a new schema, dropped after `body`.
    private func withSchema(_ body: (PostgresConnection) throws -> Void) throws {
        let conninfo = try PostgresTestCluster.required()
        let schema = PostgresTestCluster.uniqueSchema()
        let admin = try PostgresConnection(conninfo)
        try admin.execute("CREATE SCHEMA " + admin.quotedIdentifier(schema))
        defer { _ = try? admin.execute("DROP SCHEMA " + admin.quotedIdentifier(schema) + " CASCADE") }
        try body(try PostgresConnection(conninfo, schema: schema))
    }

    @Test func parametersRoundTripExactlyAndNullIsNull() throws {
        try withSchema { connection in
            let tricky = "caf\u{E9} cafe\u{301} \"quoted\" back\\slash 'single' {braces},commas 😀"
            let row = try #require(try connection.query("SELECT $1::text, $2::bigint, $3::boolean, $4::text",
                                                        [.text(tricky), .integer(.min), .bool(true), .null]).first)
            #expect(Array(row.text(0).unicodeScalars) == Array(tricky.unicodeScalars))
            #expect(row.int64(1) == .min && row.bool(2) && row.optionalText(3) == nil)
            let unnested = try connection.query("SELECT * FROM unnest($1::text[]) WITH ORDINALITY ORDER BY 2",
                                                [.array([.text(tricky), .null, .text("")])]).all
            #expect(unnested.map { $0.optionalText(0) } == [tricky, nil, ""])
        }
    }

    @Test func errorsCarryTheirSQLStateAndATransactionRollsBack() throws {
        try withSchema { connection in
            try connection.execute("CREATE TABLE t (k integer PRIMARY KEY)")
            try connection.query("INSERT INTO t VALUES ($1)", [.integer(1)])
            do {
                try connection.query("INSERT INTO t VALUES ($1)", [.integer(1)])
                Issue.record("a duplicate key was accepted")
            } catch let error as PostgresError {
                #expect(error.sqlState == PostgresError.SQLState.uniqueViolation && error.kind == .statement)
                #expect(!error.isConnectionFailure)
            }
            #expect(throws: PostgresError.self) {
                try connection.transaction {
                    try connection.query("INSERT INTO t VALUES ($1)", [.integer(2)])
                    try connection.query("INSERT INTO t VALUES ($1)", [.integer(1)])
                }
            }
            #expect(try connection.query("SELECT count(*) FROM t").first?.int64(0) == 1)
        }
    }

    @Test func migrationsRunOnceInOrderAndANewerSchemaIsRefused() throws {
        try withSchema { connection in
            let migrations: [PostgresMigration] = ["CREATE TABLE a (x integer)", "INSERT INTO a VALUES (1)"]
            try connection.migrate(migrations)
            try connection.migrate(migrations)
            #expect(try connection.query("SELECT count(*) FROM a").first?.int64(0) == 1)
            #expect(try connection.query("SELECT version FROM schema_version").first?.int64(0) == 2)
            #expect(throws: PostgresError.self) { try connection.migrate(Array(migrations.prefix(1))) }
        }
    }

    /// A migration's Swift step runs after its SQL in the same transaction: when it fails, neither the SQL nor
    /// the new version stays, and the next attempt runs both again.
    @Test func aMigrationsSwiftStepRunsInItsTransaction() throws {
        try withSchema { connection in
            let failing = PostgresMigration("CREATE TABLE b (x integer)") { connection in
                try connection.query("INSERT INTO b VALUES (1)")
                throw PostgresError(kind: .statement, sqlState: nil, message: "the step failed")
            }
            #expect(throws: PostgresError.self) { try connection.migrate(["CREATE TABLE a (x integer)", failing]) }
            #expect(try connection.query("SELECT version FROM schema_version").first?.int64(0) == 1)
            #expect(try connection.query("SELECT count(*) FROM pg_tables WHERE tablename = 'b' AND schemaname = current_schema()")
                        .first?.int64(0) == 0)
            let working = PostgresMigration("CREATE TABLE b (x integer)") { connection in
                try connection.query("INSERT INTO b SELECT count(*) FROM b")
            }
            try connection.migrate(["CREATE TABLE a (x integer)", working])
            try connection.migrate(["CREATE TABLE a (x integer)", working])
            #expect(try connection.query("SELECT version FROM schema_version").first?.int64(0) == 2)
            #expect(try connection.query("SELECT x FROM b").all.map { $0.int64(0) } == [0])
        }
    }

    @Test func aTerminatedBackendIsAConnectionFailureAndReconnectWorks() throws {
        try withSchema { connection in
            let pid = try #require(try connection.query("SELECT pg_backend_pid()").first?.int64(0))
            let other = try PostgresConnection(try PostgresTestCluster.required())
            try other.query("SELECT pg_terminate_backend($1::integer)", [.integer(pid)])
            do {
                try connection.query("SELECT 1")
                Issue.record("a terminated backend answered")
            } catch let error as PostgresError {
                #expect(error.isConnectionFailure, "\(error)")
            }
            #expect(!connection.isConnected)
            try connection.reconnect()
            #expect(try connection.query("SELECT current_schema()").first?.text(0) == connection.schema)
        }
    }

    @Test func notificationsArriveAfterTheSendersCommit() throws {
        try withSchema { listener in
            try listener.execute("LISTEN expense_test")
            let sender = try PostgresConnection(try PostgresTestCluster.required())
            try sender.transaction {
                try sender.query("SELECT pg_notify('expense_test', $1)", [.text("ledger-a")])
                #expect(try listener.notifications(timeout: 0.05).isEmpty)
            }
            var arrived: [PostgresConnection.Notification] = []
            for _ in 0..<100 where arrived.isEmpty { arrived = try listener.notifications(timeout: 0.1) }
            #expect(arrived.map(\.payload) == ["ledger-a"])
        }
    }
}

/// What needs no server.
@Suite struct PostgresConninfoTests {
    @Test(arguments: [
        "host=db.example port=5433 user=alice password=s3cret dbname=expense",
        "postgresql://alice:s3cret@db.example:5433/expense",
    ])
    func theRedactedFormNeverHoldsThePassword(conninfo: String) throws {
        let redacted = try PostgresConnection.redacted(conninfo)
        #expect(!redacted.contains("s3cret"))
        #expect(redacted.contains("host=db.example") && redacted.contains("user=alice") && redacted.contains("port=5433"))
    }

    @Test func aMalformedStringIsAConnectionErrorWithoutItsText() {
        #expect(throws: PostgresError.self) { try PostgresConnection.redacted("host=x password='s3cret") }
    }
}
