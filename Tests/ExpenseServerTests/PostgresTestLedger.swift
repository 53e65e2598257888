import ExpenseCore
import Foundation
import Synchronization
import PostgreSQL
import Testing
import TestSupport
@testable import ExpenseServer

/// One test's own schema in the test cluster (``TestSupport/PostgresTestCluster``): created migrated, dropped
/// with everything in it when the value goes away.
final class PostgresTestSchema {
    let conninfo: String
    let schema: String

    /// - Parameter migrations: only the first this many of ``PostgresLedgerStore/migrations`` (a database as an
    ///   older version left it, for a migration's test); every one by default.
    init(migrations: Int? = nil) throws {
        conninfo = try PostgresTestCluster.required()
        schema = PostgresTestCluster.uniqueSchema()
        let admin = try PostgresConnection(conninfo)
        try admin.execute("CREATE SCHEMA " + admin.quotedIdentifier(schema))
        if let migrations {
            try connect().migrate(Array(PostgresLedgerStore.migrations.prefix(migrations)))
        } else {
            try PostgresLedgerStore.prepareSchema(try connect())
        }
    }

    /// A new connection that uses this schema.
    func connect() throws -> PostgresConnection { try PostgresConnection(conninfo, schema: schema) }

    /// A store of the ledger `name`, created if missing, on a connection of its own.
    func store(name: String = "test", currency: Currency = .usd,
               outcomeRetention: Int64 = ConsumedOutcome.defaultRetention, faults: StoreFaults? = nil) throws -> PostgresLedgerStore {
        try Self.store(conninfo: conninfo, schema: schema, name: name, currency: currency, outcomeRetention: outcomeRetention,
                       faults: faults)
    }

    /// The same from the schema's name alone (a value of its own, free to be sent to a ``Ledger``).
    static func store(conninfo: String, schema: String, name: String = "test", currency: Currency = .usd,
                      outcomeRetention: Int64 = ConsumedOutcome.defaultRetention, faults: StoreFaults? = nil) throws -> PostgresLedgerStore {
        let connection = try PostgresConnection(conninfo, schema: schema)
        do {
            try PostgresLedgerStore.create(connection: connection, name: name, currency: currency, token: nil)
        } catch LedgerError.ledgerExists {}
        return try PostgresLedgerStore(connection: connection, name: name, outcomeRetention: outcomeRetention, faults: faults)
    }

    /// Whether `deinit` drops the schema (``SchemaKeeper`` drops it later itself).
    var dropsWhenGone = true

    deinit {
        if dropsWhenGone { Self.drop(schema, conninfo: conninfo) }
    }

    static func drop(_ schema: String, conninfo: String) {
        if let admin = try? PostgresConnection(conninfo) {
            _ = try? admin.execute("DROP SCHEMA " + admin.quotedIdentifier(schema) + " CASCADE")
        }
    }
}

/// Holds test schemas for as long as a suite value lives (Swift Testing makes one per test).
final class SchemaKeeper: Sendable {
    private let kept = Mutex<[(conninfo: String, schema: String)]>([])

    /// A store over a new schema, which is dropped when this keeper goes rather than with the schema value.
    func store(outcomeRetention: Int64, faults: StoreFaults? = nil) throws -> PostgresLedgerStore {
        let schema = try PostgresTestSchema()
        schema.dropsWhenGone = false
        let (conninfo, name) = (schema.conninfo, schema.schema)
        kept.withLock { $0.append((conninfo, name)) }
        return try schema.store(outcomeRetention: outcomeRetention, faults: faults)
    }

    deinit {
        for (conninfo, schema) in kept.withLock({ $0 }) { PostgresTestSchema.drop(schema, conninfo: conninfo) }
    }
}

/// The marker the PostgreSQL cases leave when they are skipped: `LedgerStoreKind.allCases` holds `.postgres` only
/// when a cluster is given (or under CI, where its absence then fails every case).
@Suite(.offTheCooperativePool) struct PostgresStoreCasesTests {
    @Test(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
    func thePostgresStoreCasesRun() throws {
        #expect(LedgerStoreKind.allCases.contains(.postgres))
        _ = try PostgresTestSchema()
    }
}
