import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import SQLite

/// The ledger's identity in its own `meta` table (Protocol.md §5.7), so that a backup, a restore or a copy of the
/// file keeps it: `ledger_id` (made once), `epoch` and `epoch_cursor` (replaced whenever the history is).
extension SQLiteLedgerStore {
    static let ledgerIdKey = "ledger_id"
    static let epochKey = "epoch"
    static let epochCursorKey = "epoch_cursor"

    /// The identity stored in `meta`, giving a ledger that has none yet (made by an older version) a new
    /// `ledgerId` and a first epoch beginning at 0. Runs in its own transaction when it writes.
    static func loadIdentity(_ meta: [String: String], connection: SQLiteConnection) throws -> LedgerIdentity {
        var written: [String: String] = [:]
        let ledgerId = meta[ledgerIdKey].flatMap(UUIDText.parse) ?? {
            let made = UUID()
            written[ledgerIdKey] = UUIDText.lowercased(made)
            return made
        }()
        var epochCursor = meta[epochCursorKey].flatMap { Int64($0) } ?? 0
        let epoch = meta[epochKey].flatMap(UUIDText.parse) ?? {
            let made = UUID()
            written[epochKey] = UUIDText.lowercased(made)
            written[epochCursorKey] = "0"
            epochCursor = 0
            return made
        }()
        if !written.isEmpty { try setMeta(written, connection: connection) }
        return LedgerIdentity(ledgerId: ledgerId, epoch: epoch, epochCursor: epochCursor)
    }

    /// Gives the database behind `connection` a new epoch beginning at its current head (a backup file, a
    /// restored ledger): clients that synced with the old history see the change in `hello` and heal.
    /// - Parameter ledgerId: also sets the ledger id (a restore keeps the id of the ledger it replaces).
    static func startNewEpoch(connection: SQLiteConnection, ledgerId: UUID? = nil) throws {
        let head = try connection.prepare("SELECT max(seq) FROM records").first { $0.int64(0) } ?? 0
        var values = [epochKey: UUIDText.lowercased(UUID()), epochCursorKey: String(head)]
        if let ledgerId { values[ledgerIdKey] = UUIDText.lowercased(ledgerId) }
        try setMeta(values, connection: connection)
    }

    private static func setMeta(_ values: [String: String], connection: SQLiteConnection) throws {
        try connection.transaction {
            for (key, value) in values {
                try connection.cached("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)").run([.text(key), .text(value)])
            }
        }
    }
}
