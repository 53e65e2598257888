import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import SQLite
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// `expensed restore FILE --ledger NAME`: the documented way back from a backup (Protocol.md §5.7,
/// docs/reliability.md "Restore").
extension LedgerDirectory {
    /// What a restore did.
    public struct RestoreReport: Sendable {
        /// Records in the restored ledger (tombstones included) and its head.
        public var records: Int64
        public var head: Int64
        /// The restored ledger's id (that of the ledger it replaced, when there was one) and its new epoch.
        public var identity: LedgerIdentity
        /// Where the replaced database was kept, or `nil` when there was none.
        public var replacedPath: String?
    }

    /// Replaces ledger `name` of `dataDirectory` with the backup at `file`, under the directory's lock.
    ///
    /// Steps: take the lock (refused while a daemon serves the directory); check `file` (`integrity_check`, a
    /// ledger of that name, the same ledger id as the one it replaces); copy it with SQLite's backup API into a
    /// temporary file in the directory, migrate it, give it a new epoch beginning at its head (keeping the id of
    /// the ledger it replaces); fold the old database's WAL into it and keep it as `NAME.sqlite.replaced-<time>`;
    /// rename the new file over `NAME.sqlite` (atomic) and fsync the directory. The tokens are the backup's
    /// (hashes only, so no token file can be written from them: `NAME.token` is left as it is). The backup file
    /// itself is never changed.
    /// - Throws: ``LedgerError/dataDirectoryInUse(path:pid:)``, ``LedgerError/invalidBackup(path:detail:)``,
    ///   ``LedgerError/invalidLedgerName(_:)``, ``LedgerError/dataDirectory(path:detail:)``, or a storage error.
    public static func restore(dataDirectory: String, ledger name: String, from file: String) throws -> RestoreReport {
        guard isValid(name: name) else { throw LedgerError.invalidLedgerName(name) }
        let lock = try DataDirectoryLock(directory: dataDirectory)
        defer { withExtendedLifetime(lock) {} }
        let path = databasePath(name, in: dataDirectory)
        let backupMeta = try checkedMeta(of: file)
        guard backupMeta["name"] == name else {
            throw LedgerError.invalidBackup(path: file, detail: "it is a backup of ledger '\(backupMeta["name"] ?? "?")', not of '\(name)'")
        }
        var keptId: UUID?
        if FileManager.default.fileExists(atPath: path) {
            let current = try? readMeta(of: path)
            keptId = current?[SQLiteLedgerStore.ledgerIdKey].flatMap(UUIDText.parse)
            if let keptId, let backupId = backupMeta[SQLiteLedgerStore.ledgerIdKey].flatMap(UUIDText.parse), backupId != keptId {
                throw LedgerError.invalidBackup(path: file, detail: "it is a backup of another ledger (id \(UUIDText.lowercased(backupId)), "
                                                + "not \(UUIDText.lowercased(keptId)))")
            }
        }

        let temporary = dataDirectory + "/." + name + "-restore-" + UUIDText.lowercased(UUID()) + ".sqlite"
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) } }
        let descriptor = Glibc.open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw LedgerError.dataDirectory(path: dataDirectory, detail: String(cString: strerror(errno))) }
        Glibc.close(descriptor)
        let report: RestoreReport
        do {
            try SQLiteConnection(path: file, mode: .readOnly).backup(to: temporary)
            do {
                let connection = try SQLiteConnection(path: temporary, mode: .readWrite)
                try SQLiteLedgerStore.startNewEpoch(connection: connection, ledgerId: keptId)
            }
            let store = try SQLiteLedgerStore(path: temporary, name: name, currency: .usd, verify: true)  // migrates, loads
            let records = try store.connection.prepare("SELECT count(*) FROM records").first { $0.int64(0) } ?? 0
            report = RestoreReport(records: records, head: store.head, identity: store.identity, replacedPath: nil)
        } catch let error as LedgerError {
            throw error
        } catch {
            throw LedgerError.storage(error)
        }

        var replaced: String?
        if FileManager.default.fileExists(atPath: path) {
            // The old database's WAL belongs to it alone: fold it in (no daemon runs: the lock), so no -wal is left
            // beside the name the new file takes. A damaged old file is kept as it is.
            if let old = try? SQLiteConnection(path: path, mode: .readWrite) {
                _ = try? old.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            }
            let kept = path + ".replaced-" + Self.timestamp() + "-" + UUIDText.lowercased(UUID()).prefix(8)
            guard link(path, kept) == 0 else {
                throw LedgerError.dataDirectory(path: dataDirectory, detail: "cannot keep the replaced database as \(kept): \(String(cString: strerror(errno)))")
            }
            replaced = kept
        }
        for suffix in ["-wal", "-shm", "-journal"] { unlink(path + suffix) }
        guard rename(temporary, path) == 0 else {
            throw LedgerError.dataDirectory(path: dataDirectory, detail: "cannot rename the restored database into place: \(String(cString: strerror(errno)))")
        }
        try? AtomicFile.syncDirectory(containing: path)
        var result = report
        result.replacedPath = replaced
        return result
    }

    /// The `meta` of a backup file after `integrity_check`, opened read-only (the file is never changed).
    private static func checkedMeta(of file: String) throws -> [String: String] {
        guard FileManager.default.fileExists(atPath: file) else { throw LedgerError.invalidBackup(path: file, detail: "no such file") }
        do {
            let connection = try SQLiteConnection(path: file, mode: .readOnly)
            if let report = try connection.check(full: true) { throw LedgerError.invalidBackup(path: file, detail: "damaged: \(report)") }
            let meta = try readMeta(connection)
            guard meta["name"] != nil, meta["currency"].flatMap(Currency.init(code:)) != nil else {
                throw LedgerError.invalidBackup(path: file, detail: "it has no ledger name and currency")
            }
            _ = try connection.prepare("SELECT count(*) FROM records").first { $0.int64(0) }
            return meta
        } catch let error as LedgerError {
            throw error
        } catch {
            throw LedgerError.invalidBackup(path: file, detail: "\(error)")
        }
    }

    private static func readMeta(of path: String) throws -> [String: String] {
        try readMeta(try SQLiteConnection(path: path, mode: .readOnly))
    }

    private static func readMeta(_ connection: SQLiteConnection) throws -> [String: String] {
        var meta: [String: String] = [:]
        try connection.prepare("SELECT key, value FROM meta").forEach { meta[$0.text(0)] = $0.text(1) }
        return meta
    }

    /// Now in UTC as ISO 8601's basic format, `20261206T095022Z`: the log's time stamp without its separators.
    private static func timestamp() -> String {
        LogTimestamp.now().filter { $0 != "-" && $0 != ":" }
    }
}
