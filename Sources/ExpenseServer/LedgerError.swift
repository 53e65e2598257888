import ExpenseCore
import ExpenseProtocol
import SQLite

/// Why a ledger operation failed. Each case has a stable snake_case ``reason`` (the protocol's `data.reason`),
/// the JSON-RPC error ``code`` to answer with, and a ``message`` for a person.
public enum LedgerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `pull`'s `since` is negative or beyond the ledger's head.
    case invalidCursor(since: Int64, head: Int64)
    /// The disk is full: the transaction was rolled back and nothing of it acknowledged. Writes work again
    /// once space returns.
    case storageFull(String)
    /// Reading or writing the database failed; for a write, the transaction was rolled back and nothing of it
    /// acknowledged.
    case storageFailed(String)
    /// An earlier write failed with an I/O error (possibly a failed fsync). Because the kernel may have dropped
    /// the data it could not write while reporting it clean, retrying could acknowledge writes that are not on
    /// disk: the ledger refuses every write until the daemon re-opens it (restart), which recovers from the file.
    case ledgerFailed(String)
    /// The database file is damaged or not a ledger; it is refused, never served.
    case damagedDatabase(path: String, report: String)
    /// The ledger was closed (the daemon is shutting down).
    case ledgerClosed
    /// `ledger add` for a name that already exists.
    case ledgerExists(String)
    /// A ledger name outside `[a-z0-9][a-z0-9_-]{0,63}`.
    case invalidLedgerName(String)
    /// No ledger has this name.
    case unknownLedger(String)
    /// The data directory cannot be created or used.
    case dataDirectory(path: String, detail: String)
    /// A backup target that already exists (a backup never overwrites a file).
    case backupTargetExists(String)
    /// Another process (`expensed serve` or `expensed restore`) holds the data directory's lock
    /// (``DataDirectoryLock``); `pid` is the holder when it could be read.
    case dataDirectoryInUse(path: String, pid: Int32?)
    /// A file given to `expensed restore` that is not a sound ledger database.
    case invalidBackup(path: String, detail: String)
    /// The storage (PostgreSQL) cannot be reached: the request's transaction was not committed and nothing of
    /// it acknowledged (Protocol.md §8). The daemon reconnects with backoff; retrying later works.
    case storageUnavailable(String)

    /// `expensed token add`: the ledger has a token of that name already.
    case tokenExists(String)
    /// `expensed token revoke`: the ledger has no token of that name.
    case unknownToken(String)
    /// A token name that breaks the rule of ledger names (``LedgerDirectory/isValid(name:)``).
    case invalidTokenName(String)
    /// The stable snake_case code.
    public var reason: String {
        switch self {
        case .invalidCursor: "invalid_cursor"
        case .storageFull: RPCError.storageFullReason
        case .storageFailed: "storage_failed"
        case .ledgerFailed: "ledger_failed"
        case .damagedDatabase: "damaged_database"
        case .ledgerClosed: "ledger_closed"
        case .ledgerExists: "ledger_exists"
        case .invalidLedgerName: "invalid_ledger_name"
        case .unknownLedger: "unknown_ledger"
        case .dataDirectory: "data_directory"
        case .backupTargetExists: "backup_target_exists"
        case .dataDirectoryInUse: "data_directory_in_use"
        case .invalidBackup: "invalid_backup"
        case .storageUnavailable: "storage_unavailable"
        case .tokenExists: "token_exists"
        case .unknownToken: "unknown_token"
        case .invalidTokenName: "invalid_token_name"
        }
    }

    /// The JSON-RPC error code: ``RPCError/invalidParamsCode`` for a caller's mistake,
    /// ``RPCError/internalErrorCode`` for the daemon's own trouble.
    public var code: Int {
        switch self {
        case .invalidCursor, .ledgerExists, .invalidLedgerName, .unknownLedger, .backupTargetExists, .invalidBackup,
             .tokenExists, .unknownToken, .invalidTokenName:
            RPCError.invalidParamsCode
        case .storageFull, .storageFailed, .ledgerFailed, .damagedDatabase, .ledgerClosed, .dataDirectory, .dataDirectoryInUse:
            RPCError.internalErrorCode
        case .storageUnavailable: RPCError.storageUnavailableCode
        }
    }

    /// A sentence for a person. Never contains a token.
    public var message: String {
        switch self {
        case .invalidCursor(let since, let head): "cursor \(since) is not between 0 and the ledger's head \(head)"
        case .storageFull(let detail): "the disk is full; nothing of this push was stored (\(detail))"
        case .storageFailed(let detail): "storage failed; nothing of this request was stored (\(detail))"
        case .ledgerFailed(let detail):
            "an earlier write failed with an I/O error (\(detail)); the ledger refuses writes until the daemon is restarted"
        case .damagedDatabase(let path, let report): "the database \(path) is damaged and is not served: \(report)"
        case .ledgerClosed: "the ledger is closed"
        case .ledgerExists(let name): "a ledger named '\(name)' already exists"
        case .invalidLedgerName(let name):
            "invalid ledger name \(DisplayText.quoted(name)): use 1 to 64 of a-z, 0-9, '-' and '_', starting with a letter or digit"
        case .unknownLedger(let name): "no ledger is named \(DisplayText.quoted(name))"
        case .dataDirectory(let path, let detail): "cannot use the data directory \(path): \(detail)"
        case .backupTargetExists(let path): "\(path) already exists; a backup never overwrites a file"
        case .dataDirectoryInUse(let path, let pid):
            "the data directory \(path) is in use by another expensed (\(pid.map { "pid \($0)" } ?? "pid unknown")); "
                + "one daemon serves a directory at a time: stop it first, or give another --data"
        case .invalidBackup(let path, let detail): "\(path) is not a ledger backup: \(detail)"
        case .storageUnavailable(let detail): "the storage is unavailable; nothing of this request was stored (\(detail))"
        case .tokenExists(let name): "the ledger has a token named \(DisplayText.quoted(name)) already; revoke it first or pick another name"
        case .unknownToken(let name): "the ledger has no token named \(DisplayText.quoted(name))"
        case .invalidTokenName(let name):
            "invalid token name \(DisplayText.quoted(name)): use 1 to 64 of a-z, 0-9, '-' and '_', starting with a letter or digit"
        }
    }

    public var description: String { "\(reason): \(message)" }

    /// The error for a failed read or write of the store.
    static func storage(_ error: any Error) -> LedgerError {
        if let ledgerError = error as? LedgerError { return ledgerError }
        if let sqliteError = error as? SQLiteError {
            if sqliteError.isCorruption { return .damagedDatabase(path: sqliteError.path, report: sqliteError.message) }
            if SQLiteError.ResultCode.full ~= sqliteError.code { return .storageFull(sqliteError.description) }
        }
        return .storageFailed("\(error)")
    }
}
