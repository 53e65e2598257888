import ExpenseProtocol
import FoundationEssentials
import SQLite
#if canImport(Glibc)
import Glibc
#endif

/// `expensed backup FILE --ledger NAME --postgres CONNINFO` (docs/deploy.md, "Backing up a PostgreSQL
/// deployment"): one ledger of a PostgreSQL database, read in one `REPEATABLE READ` transaction while daemons
/// keep serving it, written as a SQLite ledger file like the one `expensed backup --data` makes. The copy is
/// the migration's (``LedgerMigration``: read back and compared, totals recomputed), then it is given a new
/// history epoch as every backup is (Protocol.md §5.7): `expensed restore FILE` puts it into a data directory
/// that `serve --data` serves and `migrate --from-sqlite` moves back.
package enum PostgresLedgerBackup {
    /// Writes ledger `name` of the database at `conninfo` (`schema`: tests) into the new file `path`.
    /// - Throws: ``LedgerError/unknownLedger(_:)``, ``LedgerError/backupTargetExists(_:)``,
    ///   ``LedgerError/storageUnavailable(_:)``, or a storage error; `path` is removed on any failure.
    @discardableResult
    package static func backup(conninfo: String, schema: String? = nil, ledger name: String, to path: String) throws -> LedgerMigration.Report {
        guard LedgerDirectory.isValid(name: name) else { throw LedgerError.unknownLedger(name) }
        try LedgerDirectory.createBackupFile(path)  // 0600, exclusively: an existing file is never overwritten
        do {
            let reports = try LedgerMigration.copy(from: PostgresLedgerSnapshots(conninfo: conninfo, schema: schema),
                                                   to: SQLiteBackupFile(path: path), ledgers: [name])
            // The copy's history ends here: once restored it is another history than the ledger's (Protocol.md §5.7).
            try SQLiteLedgerStore.startNewEpoch(connection: SQLiteConnection(path: path, mode: .readWrite))
            guard let report = reports.first else { throw LedgerError.unknownLedger(name) }
            return report
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
            if error is LedgerError { throw error }
            throw LedgerError.storage(error)
        }
    }
}

/// One new, empty SQLite file as the write side of a migration: the ledger a backup installs into it.
private final class SQLiteBackupFile: LedgerSnapshotTarget {
    private let path: String
    private var installed: String?

    init(path: String) { self.path = path }

    func ledgerNames() throws -> [String] { installed.map { [$0] } ?? [] }

    func snapshot(ledger name: String) throws -> LedgerSnapshot {
        guard installed == name else { throw LedgerError.unknownLedger(name) }
        return try SQLiteLedgerStore(path: path, name: name, currency: .usd).snapshot()
    }

    func install(_ snapshot: LedgerSnapshot) throws {
        guard installed == nil else { throw LedgerError.ledgerExists(snapshot.name) }
        try SQLiteLedgerStore.install(snapshot, intoNewFile: path)  // closed on return: the WAL is checkpointed
        installed = snapshot.name
    }
}
