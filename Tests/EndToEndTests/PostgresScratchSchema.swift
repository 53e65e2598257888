import PostgreSQL
import TestSupport

/// Runs `body` on a schema of its own in the test cluster (``TestSupport/PostgresTestCluster``), dropped
/// afterwards: with the cluster's conninfo limited to that schema (`options=-csearch_path=…`, as the real
/// binaries take it), an admin connection to the cluster, and the schema's name.
func withPostgresSchema<T>(_ body: (_ conninfo: String, _ admin: PostgresConnection, _ schema: String) throws -> T) throws -> T {
    let conninfo = try PostgresTestCluster.required()
    let schema = PostgresTestCluster.uniqueSchema()
    let admin = try PostgresConnection(conninfo)
    _ = try admin.execute("CREATE SCHEMA " + admin.quotedIdentifier(schema))
    defer { _ = try? admin.execute("DROP SCHEMA " + admin.quotedIdentifier(schema) + " CASCADE") }
    return try body(conninfo + " options=-csearch_path=" + schema, admin, schema)
}
