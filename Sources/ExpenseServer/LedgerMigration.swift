import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import PostgreSQL
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// `expensed migrate` (docs/deploy.md, "Moving a ledger"): copies whole ledgers from one storage to another
/// through ``LedgerSnapshotSource`` and ``LedgerSnapshotTarget``, so a client that synced with the source
/// syncs with the target as if nothing happened (same ledger id, epoch, seqs and exactly-once bookkeeping:
/// `pulled 0`, no healing).
package enum LedgerMigration {
    /// What one ledger's copy did.
    package struct Report: Hashable, Sendable {
        package var ledger: String
        package var records: Int
        package var head: Int64
        package var seconds: Double
    }

    /// Copies `ledgers` (every ledger of `source` when empty) to `target`, one after another. Refuses before
    /// copying anything when the target has a ledger of one of those names. Each copy is read back from the
    /// target and compared with what was read from the source; the live totals are recomputed from the
    /// records and compared with the source's aggregates.
    /// - Throws: ``LedgerError/ledgerExists(_:)``, ``LedgerError/unknownLedger(_:)``,
    ///   ``LedgerError/storageFailed(_:)`` when a check fails, or a storage error.
    package static func copy(from source: any LedgerSnapshotSource, to target: any LedgerSnapshotTarget,
                             ledgers: [String] = []) throws -> [Report] {
        let names = ledgers.isEmpty ? try source.ledgerNames() : ledgers
        let existing = Set(try target.ledgerNames())
        if let taken = names.first(where: existing.contains) { throw LedgerError.ledgerExists(taken) }
        var reports: [Report] = []
        for name in names {
            let started = ContinuousClock.now
            let snapshot = try source.snapshot(ledger: name)
            guard snapshot.recomputedTotals == snapshot.totals else {
                throw LedgerError.storageFailed("ledger '\(name)': the source's totals are not the sum of its live records")
            }
            try target.install(snapshot)
            guard try target.snapshot(ledger: name) == snapshot else {
                throw LedgerError.storageFailed("ledger '\(name)': the copy read back differs from the source")
            }
            let elapsed = ContinuousClock.now - started
            reports.append(Report(ledger: name, records: snapshot.records.count + snapshot.dataRecords.count, head: snapshot.head,
                                  seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
        }
        return reports
    }
}

/// A data directory of SQLite ledgers as either side of a migration.
///
/// As a source it holds the directory's lock (``DataDirectoryLock``) for as long as it lives: a directory a
/// daemon serves is refused (``LedgerError/dataDirectoryInUse(path:pid:)``), and no daemon can start on it
/// during the copy. As a target it needs no lock: each ledger appears atomically (written under a temporary
/// name, then linked into place, never over an existing file), as `ledger add` makes one beside a daemon.
package final class SQLiteLedgerSnapshots: LedgerSnapshotTarget {
    private let directory: String
    private let lock: DataDirectoryLock?

    /// - Parameter locking: take the directory's lock (a source).
    package init(dataDirectory: String, locking: Bool) throws {
        directory = dataDirectory
        if !locking { try LedgerDirectory.makeDirectory(dataDirectory) }
        lock = locking ? try DataDirectoryLock(directory: dataDirectory) : nil
    }

    package func ledgerNames() throws -> [String] { try LedgerDirectory.ledgerNames(in: directory) }

    package func snapshot(ledger name: String) throws -> LedgerSnapshot {
        let path = LedgerDirectory.databasePath(name, in: directory)
        guard LedgerDirectory.isValid(name: name), FileManager.default.fileExists(atPath: path) else {
            throw LedgerError.unknownLedger(name)
        }
        return try SQLiteLedgerStore(path: path, name: name, currency: .usd).snapshot()
    }

    package func install(_ snapshot: LedgerSnapshot) throws {
        let name = snapshot.name
        guard LedgerDirectory.isValid(name: name) else { throw LedgerError.invalidLedgerName(name) }
        let path = LedgerDirectory.databasePath(name, in: directory)
        guard !FileManager.default.fileExists(atPath: path) else { throw LedgerError.ledgerExists(name) }
        let temporary = directory + "/." + name + "-" + UUIDText.lowercased(UUID()) + ".sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { unlink(temporary + suffix) } }
        // Created 0600 before SQLite opens it: SQLite gives its -wal and -shm files the database's mode.
        let descriptor = Glibc.open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw LedgerError.dataDirectory(path: directory, detail: String(cString: strerror(errno))) }
        Glibc.close(descriptor)
        try SQLiteLedgerStore.install(snapshot, intoNewFile: temporary)  // closed on return: the WAL is checkpointed
        // link(2) fails when the name exists: an existing ledger is never replaced.
        guard link(temporary, path) == 0 else {
            throw errno == EEXIST ? LedgerError.ledgerExists(name)
                                  : LedgerError.dataDirectory(path: directory, detail: String(cString: strerror(errno)))
        }
        try? AtomicFile.syncDirectory(containing: path)
    }
}

/// The ledgers of a PostgreSQL database as either side of a migration, on a connection of its own. As a
/// source it takes no lock: each ledger is read in one `REPEATABLE READ` transaction, consistent while
/// daemons keep serving it (what they commit afterwards is not copied: stop them first to move a ledger).
package final class PostgresLedgerSnapshots: LedgerSnapshotTarget {
    private let connection: PostgresConnection

    /// Connects to `conninfo` (`schema`: tests) and brings its tables forward.
    package init(conninfo: String, schema: String? = nil) throws {
        connection = try PostgresLedgerStore.storage { try PostgresConnection(conninfo, schema: schema) }
        try PostgresLedgerStore.prepareSchema(connection)
    }

    package func ledgerNames() throws -> [String] { try PostgresLedgerStore.ledgers(connection).map(\.name) }

    package func snapshot(ledger name: String) throws -> LedgerSnapshot {
        try PostgresLedgerStore.snapshot(ledger: name, connection: connection)
    }

    package func install(_ snapshot: LedgerSnapshot) throws { try PostgresLedgerStore.install(snapshot, connection: connection) }
}
