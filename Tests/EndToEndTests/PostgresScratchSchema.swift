import PostgreSQL
import TestSupport

/// A schema of its own in the test cluster (``TestSupport/PostgresTestCluster``) for one end-to-end test, empty
/// (the daemon under test creates its tables); dropped by ``drop()``, which the test defers.
final class PostgresScratchSchema {
    /// A connection to the cluster, for checks on the schema's tables.
    let admin: PostgresConnection
    /// The schema's name.
    let schema: String
    /// The conninfo that makes the schema the search path, for `--postgres`.
    let target: String

    init() throws {
        let conninfo = try PostgresTestCluster.required()
        schema = PostgresTestCluster.uniqueSchema()
        admin = try PostgresConnection(conninfo)
        _ = try admin.execute("CREATE SCHEMA " + admin.quotedIdentifier(schema))
        target = conninfo + " options=-csearch_path=" + schema
    }

    /// Drops the schema and everything in it.
    func drop() { _ = try? admin.execute("DROP SCHEMA " + admin.quotedIdentifier(schema) + " CASCADE") }
}

/// Runs `body` on a ``PostgresScratchSchema`` dropped afterwards, with the schema's conninfo (for `--postgres`),
/// the admin connection and the schema's name.
func withPostgresSchema<T>(_ body: (_ conninfo: String, _ admin: PostgresConnection, _ schema: String) throws -> T) throws -> T {
    let database = try PostgresScratchSchema()
    defer { database.drop() }
    return try body(database.target, database.admin, database.schema)
}
