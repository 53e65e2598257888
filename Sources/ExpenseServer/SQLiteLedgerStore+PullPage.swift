import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import SQLite
#if canImport(Glibc)
import Glibc
#endif

/// The SQLite store's pull pages written straight from the rows (a first sync reads a million records this way):
/// no ``Record``, `String` or id array per row. Each object is byte for byte what ``Record/write(to:)`` writes for
/// the record ``changedRecords(since:limit:snapshot:)`` reads from the same row (`PullPageEncodingTests`), through the one
/// layout ``ExpenseProtocol/ExpenseFields/writeRecordObject(to:_:deleted:id:seq:version:)``, reading only the
/// columns a page writes (``RecordColumns/pageList``).
extension SQLiteLedgerStore {
    package func changes(since: Int64, limit: Int, snapshot: Int64?, maximumBytes: Int) throws -> EncodedChanges {
        var page = EncodedChanges(capacity: min(limit, PullRequest.limitRange.upperBound + 1, maximumBytes / Self.encodedRecordBytes + 2)
                                  * Self.encodedRecordBytes)
        var currency = PageCurrency(self.currency)
        var regular = true
        let types = ExpenseColumns.types  // read once, not once per row
        try connection.cached("SELECT \(RecordColumns.pageList) FROM \(Self.pulledRows) ORDER BY seq LIMIT ?2")
            .forEachRow([.integer(since), .integer(Int64(limit)), .integer(Self.purgedCut(since: since, snapshot: snapshot))]) { row in
            var values = RecordObjectRow()
            guard let id = row.withBlob(RecordColumns.pageId, { $0.count == 16 ? $0.loadUnaligned(as: uuid_t.self) : nil }),
                  Self.read(row, into: &values, types: types, currency: &currency) else {
                regular = false
                return false
            }
            let seq = row.int64(RecordColumns.seq)
            page.append(seq: seq) { writer in
                ExpenseFields.writeRecordObject(to: &writer, values, deleted: row.flag(RecordColumns.deleted), id: id,
                                                seq: seq, version: row.int64(RecordColumns.version))
            }
            // Past the line's bytes with two records or more: the line is cut at or before this record
            // (EncodedPullPage.responseLine), so the rows after it would never be sent.
            return page.count < 2 || page.byteCount + page.count - 1 <= maximumBytes
        }
        // A row the general decoder refuses (a damaged file) or repairs (text that is not UTF-8): the general
        // path gives its exact error or bytes.
        guard regular else { return EncodedChanges(try changedRecords(since: since, limit: limit, snapshot: snapshot)) }
        return page
    }

    /// Reads `row`'s expense values into `values` (its texts lent for the row's life) when the general path reads
    /// them as they are, so the page may be written from the row: each day a day, each currency known, each text
    /// valid UTF-8 (`String` would replace anything else), the optional fields in their form and the amount charged
    /// an amount.
    @inline(__always)
    private static func read(_ row: SQLiteRow, into values: inout RecordObjectRow, types: [ExpenseColumnType],
                             currency: inout PageCurrency) -> Bool {
        for index in types.indices {
            let position = Int32(index), column = RecordColumns.values + position
            switch types[index] {
            case .integer:
                values.setInt64(row.int64(column), at: position)
            case .day:
                let ordinal = row.int64(column)
                guard CalendarDay(ordinal: Int(ordinal)) != nil else { return false }
                values.setInt64(ordinal, at: position)
            case .currency:
                let bytes = row.textBytes(column)
                guard currency.resolve(bytes) else { return false }
                values.setText(bytes, at: position)
            case .text:
                let bytes = row.textBytes(column)
                guard isUTF8(bytes) else { return false }
                values.setText(bytes, at: position)
            case .extras:
                let bytes = row.textBytes(column)
                guard !bytes.isEmpty else { continue }
                guard isUTF8(bytes) else { return false }
                var charged = true
                let valid = ExpenseExtras.forEachEntry(in: bytes) { key, value in
                    if key == .charged {
                        // Rare: a row with an amount charged makes a `String` of its digits.
                        let amount = ExpenseExtras.charged(String(decoding: value, as: UTF8.self))
                        charged = amount.map { values.setInt64($0, at: ExpenseColumns.Value.charged) } != nil
                    } else {
                        values.setText(value, at: ExpenseColumns.Value.position(of: key))
                    }
                }
                guard valid, charged else { return false }
            }
        }
        return true
    }

    /// Whether `bytes` are valid UTF-8, which the general path's `String` keeps as they are (it would replace
    /// anything else): ASCII at a glance, eight bytes at a time; other text by decoding it.
    private static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index + 8 <= bytes.count {
            guard raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 else {
                return String(decoding: bytes, as: UTF8.self).utf8.elementsEqual(bytes)
            }
            index += 8
        }
        while index < bytes.count {
            guard base[index] < 0x80 else { return String(decoding: bytes, as: UTF8.self).utf8.elementsEqual(bytes) }
            index += 1
        }
        return true
    }

    /// About what one record takes on the wire.
    private static let encodedRecordBytes = 200
}

/// The currency code of the rows being read: pages are mostly in one currency, so a row's code is compared with
/// the last one's bytes and looked up only when it differs.
private struct PageCurrency {
    private var code: [UInt8]

    init(_ currency: Currency) {
        code = Array(currency.code.utf8)
    }

    /// Whether `bytes` are a known currency's code (the bytes the page writes, and the general path's code).
    mutating func resolve(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if bytes.count == code.count, code.withUnsafeBufferPointer({ known in
            guard let left = known.baseAddress, let right = bytes.baseAddress else { return bytes.isEmpty }
            return memcmp(left, right, bytes.count) == 0
        }) {
            return true
        }
        guard let found = Currency(code: String(decoding: bytes, as: UTF8.self)) else { return false }
        code = Array(found.code.utf8)
        return true
    }
}
