import ExpenseCore
import FoundationEssentials
import SQLite

extension SQLiteLedgerStore {
    /// What the store keeps in memory about its records, read at open in one scan of `records` in the table's
    /// order: where each record is (its seq), and the live records' totals per day, month, category and
    /// currency (``LiveDayTotals/Builder``), and per currency. No `String` or array is made per row: the id,
    /// category and currency are read from SQLite's bytes.
    /// - Throws: ``SQLite/SQLiteError``; ``LedgerError/storageFailed(_:)`` for an id that is not 16 bytes, a seq
    ///   that is not positive or live amounts whose sum overflows.
    static func loadRecords(_ connection: SQLiteConnection) throws
        -> (seqById: SeqByIdMap, dayTotals: LiveDayTotals, totals: [Currency: Int64]) {
        var seqById = SeqByIdMap()
        seqById.reserveCapacity(Int(try connection.prepare("SELECT count(*) FROM records").first { $0.int64(0) } ?? 0))
        var builder = LiveDayTotals.Builder()
        try connection.prepare("SELECT id, seq, deleted, day, amount, category, currency, \(ExpenseColumns.extrasName) FROM records").forEach { row in
            let id = try row.withBlob(0) { bytes in
                guard bytes.count == 16 else { throw LedgerError.storageFailed("a stored id is not 16 bytes") }
                return UUID(uuid: bytes.loadUnaligned(as: uuid_t.self))
            }
            // A file edited behind the daemon's back must fail this ledger's open, not stop the process.
            let seq = row.int64(1)
            guard seq > 0 else { throw LedgerError.storageFailed("record \(UUIDText.lowercased(id)) has seq \(seq), not a positive one") }
            seqById[id] = seq
            guard row.int64(2) == 0 else { return }
            try row.withText(5) { category in
                try row.withText(6) { currency in
                    try builder.add(day: row.int(3), category: category, currency: currency, amount: row.int64(4))
                }
            }
            // Optional fields are rare, parts rarer: their text is made a `String` only when there are some.
            guard row.withText(7, { !$0.isEmpty }) else { return }
            guard let values = ExpenseExtras.values(in: row.text(7)) else {
                throw LedgerError.storageFailed("record \(UUIDText.lowercased(id)) has damaged optional fields")
            }
            if let parts = values[ExpenseExtras.Key.parts.rawValue] { try builder.addParts(parts) }
        }
        let totals = builder.currencyTotals
        return (seqById, try builder.build(), totals)
    }
}
