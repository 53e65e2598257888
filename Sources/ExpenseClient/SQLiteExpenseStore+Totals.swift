import ExpenseCore
import ExpenseProtocol
import SQLite

/// The live totals per currency, kept in `live_total` (migration 7) in the same transaction as every change of
/// the local view: by triggers on `expense`, and during a bulk load (whose pages the triggers would slow) by
/// ``SQLiteCacheTables/putSettled(_:)`` adding each page's totals, recounted at the end only when
/// duplicate rows were dropped.
extension SQLiteExpenseStore {
    /// One row of `live_total`: no expense is read or summed.
    package func liveTotal(currency: Currency) throws -> Int64? {
        let total = try reading {
            try connection.cached("SELECT high, low, count FROM live_total WHERE currency = ?1")
                .first([.text(currency.code)]) { LiveTotal(high: $0.int64(0), low: $0.int64(1), count: $0.int64(2)) }
        }
        guard let total else { return 0 }
        return total.sum
    }

    /// The counts of `live_total` added up (one row per currency ever stored).
    package func liveCount() throws -> Int {
        try reading { try connection.cached("SELECT coalesce(sum(count), 0) FROM live_total").first { $0.int(0) } ?? 0 }
    }

    /// `live_total` built again from the expense rows, in the caller's transaction (after a bulk load dropped
    /// duplicate rows, which the page totals had counted).
    static func recountTotals(connection: SQLiteConnection) throws {
        try connection.execute("DELETE FROM live_total; INSERT INTO live_total(currency, high, low, count) \(recountSQL)")
    }

    /// The totals of the live rows, one GROUP BY (as migration 7 builds them).
    static let recountSQL = """
        SELECT currency, sum(amount >> 32), sum(amount & 4294967295), count(*) FROM expense WHERE deleted = 0
        GROUP BY currency
        """
}

extension SQLiteCacheTables {
    /// Adds a bulk-loaded page's live records to `live_total` (the triggers are dropped meanwhile): one upsert
    /// per currency in the page.
    func addBulkTotals(of records: [Record]) throws {
        // A page holds a handful of currencies, usually in runs: a short list searched from the last one used
        // costs less per record than hashing the code.
        var totals: [(currency: String, total: LiveTotal)] = []
        var last = 0
        for record in records where !record.deleted {
            let currency = record.expense.currency.code
            if last >= totals.count || totals[last].currency != currency {
                if let found = totals.firstIndex(where: { $0.currency == currency }) {
                    last = found
                } else {
                    totals.append((currency, LiveTotal()))
                    last = totals.count - 1
                }
            }
            totals[last].total.add(record.expense.amount)
        }
        for (currency, total) in totals {
            try connection.cached("""
                INSERT INTO live_total(currency, high, low, count) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT(currency) DO UPDATE SET high = high + excluded.high, low = low + excluded.low,
                    count = count + excluded.count
                """).run([.text(currency), .integer(total.high), .integer(total.low), .integer(total.count)])
        }
    }
}
