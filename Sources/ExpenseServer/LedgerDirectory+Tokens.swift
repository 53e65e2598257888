import ExpenseProtocol
import FoundationEssentials
import SQLite

/// `expensed token add|list|revoke`: the tokens of one ledger file, changed beside a running daemon.
///
/// These open only that ledger's file, with a connection of their own (SQLite's locking keeps them apart
/// from the daemon's). A running daemon takes a change in before the next request that reaches the ledger
/// and within a second even when none comes (``LedgerDirectory/watchTokens(every:)``): it notices another
/// process's commit through `PRAGMA data_version`.
extension LedgerDirectory {
    /// Makes a token for `ledger` and returns it: the only copy (the file keeps its SHA-256).
    /// - Throws: ``LedgerError/unknownLedger(_:)``, ``LedgerError/invalidTokenName(_:)``,
    ///   ``LedgerError/tokenExists(_:)``, or a storage error.
    package static func addToken(dataDirectory: String, ledger: String, name: String, role: TokenRole) throws -> String {
        guard isValid(name: name) else { throw LedgerError.invalidTokenName(name) }
        let token = Token.generate()
        try withTokens(dataDirectory: dataDirectory, ledger: ledger) { connection in
            try SQLiteLedgerStore.addToken(StoredToken(name: name, role: role, digest: Token.digest(token),
                                                       created: SQLiteLedgerStore.now()), connection: connection)
        }
        return token
    }

    /// The tokens of `ledger`, sorted by name (last uses as the daemon last wrote them, at most about a second old).
    /// - Throws: ``LedgerError/unknownLedger(_:)`` or a storage error.
    package static func tokens(dataDirectory: String, ledger: String) throws -> [StoredToken] {
        try withTokens(dataDirectory: dataDirectory, ledger: ledger) { try SQLiteLedgerStore.tokens(connection: $0) }
    }

    /// Removes the token `name` of `ledger`. A running daemon closes its connections within a second.
    /// - Throws: ``LedgerError/unknownLedger(_:)``, ``LedgerError/unknownToken(_:)``, or a storage error.
    package static func revokeToken(dataDirectory: String, ledger: String, name: String) throws {
        let removed = try withTokens(dataDirectory: dataDirectory, ledger: ledger) {
            try SQLiteLedgerStore.removeToken(named: name, connection: $0)
        }
        guard removed else { throw LedgerError.unknownToken(name) }
    }

    /// Runs `body` on a connection of its own to `ledger`'s file, bringing a file older than the tokens table
    /// forward first (which moves its single token to `default`).
    private static func withTokens<T>(dataDirectory: String, ledger: String, _ body: (SQLiteConnection) throws -> T) throws -> T {
        let path = databasePath(ledger, in: dataDirectory)
        guard isValid(name: ledger), FileManager.default.fileExists(atPath: path) else { throw LedgerError.unknownLedger(ledger) }
        do {
            let connection = try SQLiteConnection(path: path, mode: .readWrite)
            try connection.execute("PRAGMA synchronous = FULL")
            if try connection.userVersion <= SQLiteLedgerStore.tokensMigration {
                _ = try SQLiteLedgerStore(path: path, name: ledger, currency: .usd)
            }
            return try body(connection)
        } catch let error as LedgerError {
            throw error
        } catch {
            throw LedgerError.storage(error)
        }
    }
}
