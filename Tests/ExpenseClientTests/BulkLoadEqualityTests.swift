import TestSupport
@testable import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite
import Testing

/// The bulk load's append (``SQLiteCacheTables/putSettled(_:)`` with the indexes dropped: one multi-row INSERT
/// bound value by value) against the general path (the same pages stored record by record into a cache that
/// keeps its indexes): the same rows, byte for byte, and the same live totals.
@Suite struct BulkLoadEqualityTests {
    /// Every currency (so every exponent), the smallest and largest amounts, the first and last days, tombstones,
    /// empty and long notes, quotes, tabs, newlines, NFC and NFD text, emoji, an id pulled twice, and each optional
    /// field alone and all together, in pages of several lengths (full and partial statements).
    @Test func bulkPagesStoreWhatRecordByRecordStores() throws {
        let pages = Self.pages()
        let directory = try TemporaryDirectory()
        let bulkStore = try SQLiteExpenseStore(path: directory.path + "/bulk.sqlite")
        let bulkLedger = LocalLedger(store: bulkStore)
        #expect(try bulkStore.beginBulkLoad())
        for (number, page) in pages.enumerated() { try bulkLedger.apply(pulled: page, cursor: Int64(number + 1)) }
        try bulkStore.endBulkLoad()

        let generalStore = try SQLiteExpenseStore(path: directory.path + "/general.sqlite")
        let generalLedger = LocalLedger(store: generalStore)
        for (number, page) in pages.enumerated() { try generalLedger.apply(pulled: page, cursor: Int64(number + 1)) }

        let records = pages.flatMap { $0 }
        #expect(try bulkStore.liveCount() == generalStore.liveCount())
        for currency in Currency.all {
            #expect(try bulkStore.liveTotal(currency: currency) == generalStore.liveTotal(currency: currency), "\(currency.code)")
        }
        for record in records {
            let bulk = try bulkStore.record(id: record.expense.id)
            #expect(bulk != nil)
            #expect(bulk == (try generalStore.record(id: record.expense.id)))
        }
        // Byte for byte: the general path updates an id pulled twice in place, the bulk load keeps its last row, so
        // the rows are compared by id.
        let bulkRows = try Self.rows(directory.path + "/bulk.sqlite")
        let generalRows = try Self.rows(directory.path + "/general.sqlite")
        #expect(bulkRows.count == Set(records.map(\.expense.id)).count)
        #expect(bulkRows == generalRows)
    }

    /// The pages as a first sync gets them: written as the daemon's response lines, read back by the pull
    /// decoder (whose strings are made from the line's bytes, and whose currency and date are read as values),
    /// then bulk loaded; the rows are byte for byte those of the original records stored record by record.
    @Test func decodedPagesBulkLoadWhatRecordByRecordStores() throws {
        let pages = Self.pages(optionalFields: false)  // the layout the decoder reads by its fragments
        let directory = try TemporaryDirectory()
        let bulkStore = try SQLiteExpenseStore(path: directory.path + "/bulk.sqlite")
        let bulkLedger = LocalLedger(store: bulkStore)
        #expect(try bulkStore.beginBulkLoad())
        for (number, page) in pages.enumerated() {
            var line = RPCResponse.success(id: RequestID(Int64(number)), result: PullResult(changes: page, cursor: Int64(number + 1), more: true))
            line.removeLast()  // the `\n`, as the line reader hands it over
            let decoded = try #require(PullPageDecoder.decode(line)).result
            #expect(decoded.changes == page)
            try bulkLedger.apply(pulled: decoded.changes, cursor: decoded.cursor)
        }
        try bulkStore.endBulkLoad()

        let generalStore = try SQLiteExpenseStore(path: directory.path + "/general.sqlite")
        let generalLedger = LocalLedger(store: generalStore)
        for (number, page) in pages.enumerated() { try generalLedger.apply(pulled: page, cursor: Int64(number + 1)) }
        #expect(try Self.rows(directory.path + "/bulk.sqlite") == Self.rows(directory.path + "/general.sqlite"))
        for currency in Currency.all {
            #expect(try bulkStore.liveTotal(currency: currency) == generalStore.liveTotal(currency: currency), "\(currency.code)")
        }
    }

    /// Each row of `expense` as the type and hex bytes of every column, by id.
    private static func rows(_ path: String) throws -> [String] {
        let connection = try SQLiteConnection(path: path, mode: .readOnly)
        let columns = ["id"] + ExpenseColumns.names + ["base_version", "deleted", "seq"]
        let select = columns.map { "typeof(\($0)) || ':' || hex(\($0))" }.joined(separator: " || ' ' || ")
        return try connection.cached("SELECT \(select) FROM expense ORDER BY id").map { $0.text(0) }
    }

    /// An expense with none of its optional fields (`optional` 0, as most are), or with one or all of them set.
    private static func expense(id: UUID, amount: Int64, currency: Currency, category: String, date: CalendarDay,
                                note: String, optional: Int) -> Expense {
        let payer = UUID(uuidString: "0A1B2C3D-0000-4000-8000-000000000001") ?? UUID()
        let other = UUID(uuidString: "0A1B2C3D-0000-4000-8000-000000000002") ?? UUID()
        let split = try? SplitSpec(text: "equal:" + [payer, other].map { $0.uuidString.lowercased() }.sorted().joined(separator: ","))
        let parts = amount > 1 ? try? ExpenseParts(text: "1:drinks") : nil
        let every = optional == 7
        return Expense(id: id, amount: amount, currency: currency, category: category, date: date, note: note,
                       paidBy: optional == 1 || every ? payer : nil, split: optional == 2 || every ? split : nil,
                       charged: optional == 3 || every ? 1 : nil, tags: optional == 4 || every ? ["a b", "日本"] : [],
                       parts: optional == 5 || every ? parts : nil, source: optional == 6 || every ? "row,\"1\"\tcafe\u{301}" : "")
    }

    /// The records in pages; with `optionalFields`, one in eight has a payer, one a split, and so on for each
    /// optional field, and one has them all.
    private static func pages(optionalFields: Bool = true) -> [[Record]] {
        let notes = ["", "n", "a \"quoted\" \\ note\twith\ttabs\nand a newline", "café", "cafe\u{301}", "日本語のメモ",
                     "😀👍🏽 emoji", String(repeating: "x", count: 300), "  padded  "]
        let categories = ["food", "Café", "cafe\u{301}", "日本", "a b", "🍕"]
        let amounts: [Int64] = [1, 2, 99, 100, 12_345, 4_294_967_295, 4_294_967_296, ExpenseRules.maximumAmount - 1,
                                ExpenseRules.maximumAmount]
        let days = ["1900-01-01", "1999-12-31", "2024-02-29", "2026-11-30", "9999-12-31"].compactMap(CalendarDay.init)
        var records: [Record] = []
        var seq: Int64 = 0
        let twice = UUID()
        for (index, currency) in Currency.all.enumerated() {
            for step in 0..<3 {
                seq += 1
                let position = index * 3 + step
                let id = position == 7 || position == 200 ? twice : UUID()
                let expense = Self.expense(id: id, amount: amounts[position % amounts.count], currency: currency,
                                           category: categories[position % categories.count], date: days[position % days.count],
                                           note: notes[position % notes.count], optional: optionalFields ? position % 8 : 0)
                records.append(Record(expense: expense, version: position == 200 ? 3 : Int64(step + 1), seq: seq,
                                      deleted: position % 5 == 4))
            }
        }
        // Pages of 1, 64, 65, 100 and the rest: whole statements, a power-of-two remainder, odd remainders.
        var pages: [[Record]] = []
        var start = 0
        for length in [1, 64, 65, 100, records.count] where start < records.count {
            let end = min(start + length, records.count)
            pages.append(Array(records[start..<end]))
            start = end
        }
        return pages
    }
}
