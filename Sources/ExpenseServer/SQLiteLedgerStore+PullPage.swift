import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite

/// The SQLite store's pull pages written straight from the rows (a first sync reads a million records this way):
/// no ``Record``, `String` or id array per row. Each object is byte for byte what ``Record/write(to:)`` writes for
/// the record ``changes(since:limit:)`` reads from the same row (`PullPageEncodingTests`), through the one
/// layout ``Record/writeObject(to:amount:category:currency:date:deleted:id:note:seq:version:)``.
extension SQLiteLedgerStore {
    package func encodedChanges(since: Int64, limit: Int) throws -> EncodedChanges {
        var page = EncodedChanges(capacity: min(limit, PullRequest.limitRange.upperBound + 1) * Self.encodedRecordBytes)
        var currency = self.currency
        var regular = true
        try connection.cached("""
            SELECT seq, version, deleted, amount, currency, category, day, note, id
            FROM records WHERE seq > ?1 ORDER BY seq LIMIT ?2
            """).forEach([.integer(since), .integer(Int64(limit))]) { row in
            guard regular, let id = row.withBlob(8, Self.uuid(raw:)), let day = CalendarDay(ordinal: row.int(6)),
                  Self.resolve(&currency, row: row, column: 4), row.withText(5, Self.isUTF8), row.withText(7, Self.isUTF8) else {
                regular = false
                return
            }
            row.withText(5) { category in
                row.withText(7) { note in
                    page.append(seq: row.int64(0)) { writer in
                        Record.writeObject(to: &writer, amount: row.int64(3), category: category, currency: currency,
                                           date: day, deleted: row.int64(2) != 0, id: id, note: note,
                                           seq: row.int64(0), version: row.int64(1))
                    }
                }
            }
        }
        // A row the general decoder refuses (a damaged file) or repairs (text that is not UTF-8): the general
        // path gives its exact error or bytes.
        guard regular else { return EncodedChanges(try changes(since: since, limit: limit)) }
        return page
    }

    /// `currency` when the row's code is its code (pages are mostly in one currency), else the currency of the
    /// row's code; `false` when that is no currency.
    private static func resolve(_ currency: inout Currency, row: SQLiteRow, column: Int32) -> Bool {
        if row.withText(column, { $0.elementsEqual(currency.code.utf8) }) { return true }
        guard let found = Currency(code: row.text(column)) else { return false }
        currency = found
        return true
    }

    /// Whether `bytes` are valid UTF-8, which the general path's `String` keeps as they are (it would replace
    /// anything else): ASCII at a glance, other text by decoding it.
    private static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { $0 < 0x80 } || String(decoding: bytes, as: UTF8.self).utf8.elementsEqual(bytes)
    }

    /// About what one record takes on the wire.
    private static let encodedRecordBytes = 200
}
