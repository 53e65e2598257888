import ExpenseCore
import FoundationEssentials
import SQLite

/// `expensed ledger add` and `ledger list` on a data directory, beside a running daemon or not: each touches
/// only what it names. Adding a ledger writes its file and token file and opens no other ledger (one more
/// ledger costs the same with a hundred thousand on disk); listing reads each file's name and currency from its
/// `meta` table without opening it as a ledger (no integrity check, no index load, no thread).
extension LedgerDirectory {
    /// Creates ledger `name` in `dataDirectory` (and the directory, 0700, if missing) and returns its owner token
    /// `default`, also written to `DIR/NAME.token` (0600). A daemon serving the directory opens it when first asked.
    /// - Throws: ``LedgerError/invalidLedgerName(_:)``, ``LedgerError/ledgerExists(_:)``,
    ///   ``LedgerError/dataDirectory(path:detail:)``, or a storage error.
    package static func addLedger(dataDirectory: String, name: String, currency: Currency) throws -> String {
        guard isValid(name: name) else { throw LedgerError.invalidLedgerName(name) }
        try makeDirectory(dataDirectory)
        return try createFile(name: name, currency: currency, in: dataDirectory)
    }

    /// Every ledger in `dataDirectory`, sorted by name, with its currency.
    /// - Throws: ``LedgerError/dataDirectory(path:detail:)`` for a missing directory (nothing is created), or
    ///   ``LedgerError/damagedDatabase(path:report:)`` naming a file whose name and currency cannot be read.
    package static func ledgers(dataDirectory: String) throws -> [(name: String, currency: Currency)] {
        var ledgers: [(name: String, currency: Currency)] = []
        try forEachLedger(dataDirectory: dataDirectory) { ledgers.append(($0, $1)) }
        return ledgers
    }

    /// The name of every ledger in `dataDirectory`, sorted: the directory's listing alone, no file opened (as
    /// fast with a hundred thousand ledgers as the listing is).
    /// - Throws: ``LedgerError/dataDirectory(path:detail:)`` for a missing directory (nothing is created).
    package static func ledgerNames(dataDirectory: String) throws -> [String] {
        guard try directoryExists(dataDirectory) else {
            throw LedgerError.dataDirectory(path: dataDirectory, detail: "no such directory (nothing was created)")
        }
        return try ledgerNames(in: dataDirectory)
    }

    /// Calls `body` with each ledger of `dataDirectory` in name order and its currency, read from the file's `meta`
    /// table as it goes (about 0.25 ms a ledger), so a caller can print the first before the last is read.
    /// - Throws: as ``ledgers(dataDirectory:)``, and what `body` throws.
    package static func forEachLedger(dataDirectory: String, _ body: (String, Currency) throws -> Void) throws {
        for name in try ledgerNames(dataDirectory: dataDirectory) {
            let path = databasePath(name, in: dataDirectory)
            let code: String?
            do {
                code = try SQLiteConnection(path: path, mode: .readOnly)
                    .prepare("SELECT value FROM meta WHERE key = 'currency'").first { $0.text(0) }
            } catch {
                throw LedgerError.damagedDatabase(path: path, report: "its currency cannot be read: \(error)")
            }
            guard let code, let currency = Currency(code: code) else {
                throw LedgerError.damagedDatabase(path: path, report: "its meta table holds no valid currency")
            }
            try body(name, currency)
        }
    }
}
