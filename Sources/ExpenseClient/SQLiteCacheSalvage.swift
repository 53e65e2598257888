import ExpenseCore
import Foundation
import SQLite

/// ``CacheSalvage`` of a SQLite cache: the expense table read row by row in position order from a private copy
/// of the file (and its `-wal`), stepping over what cannot be read.
///
/// A damaged page fails every read that passes through it, so the scan notes where it stopped and looks for
/// the first position past the damage whose row can be reached (doubling the step, then halving back to the
/// smallest that works), and goes on from there. The `expense_by_id` index is a second b-tree holding every
/// row's position: where it can be read, it says exactly how many rows the scan missed.
enum SQLiteCacheSalvage {
    static func read(_ path: String) -> CacheSalvage {
        let scratch = NSTemporaryDirectory() + "expense-salvage-" + UUID().uuidString
        do {
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            return CacheSalvage(unreadable: nil, detail: "cannot make a private directory for a copy of the cache: \(error)")
        }
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let copy = scratch + "/cache.sqlite"
        do {
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            if FileManager.default.fileExists(atPath: path + "-wal") {
                try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
            }
        } catch {
            return CacheSalvage(unreadable: nil, detail: "cannot copy the cache to read it: \(error)")
        }
        let connection: SQLiteConnection
        do { connection = try SQLiteConnection(path: copy, mode: .readWrite) } catch {
            return CacheSalvage(unreadable: nil, detail: "SQLite cannot open it: \(error)")
        }
        return scan(connection)
    }

    /// The column list the scan reads: position, id (16 bytes, or the text of caches before blob ids), the
    /// fields, deleted.
    private static let select = "SELECT position, id, \(ExpenseColumns.list()), deleted FROM expense"

    private static func scan(_ connection: SQLiteConnection) -> CacheSalvage {
        var salvage = CacheSalvage()
        let rows: SQLiteStatement, next: SQLiteStatement
        do {
            rows = try connection.prepare(select + " WHERE position >= ?1 ORDER BY position")
            next = try connection.prepare("SELECT position FROM expense WHERE position >= ?1 ORDER BY position LIMIT 1")
        } catch {
            return CacheSalvage(unreadable: nil, detail: "its list of tables cannot be read: \(error)")
        }
        var read: [(position: Int64, expense: Expense)] = []
        var positionsRead = 0
        var bad = 0
        var skipped: [ClosedRange<Int64>] = []
        // The next position to read: a seek to it lands on the page that holds it, never on the damaged one before.
        var from: Int64 = 0
        scanning: while true {
            do {
                try rows.forEachRow([SQLiteValue(from)]) { row in
                    let position = row.int64(0)
                    from = position + 1
                    positionsRead += 1
                    guard let (expense, deleted) = decode(row) else {
                        bad += 1
                        return true
                    }
                    if !deleted { read.append((position, expense)) }
                    return true
                }
                break scanning
            } catch {
                // Past the damage: the smallest start whose first row can be reached.
                guard let (resume, found) = firstReachable(from: from, next) else {
                    skipped.append(from...Int64.max)
                    break scanning
                }
                skipped.append(from...resume - 1)
                from = resume
                if !found { break scanning }
            }
        }
        salvage.expenses = read.sorted { ($0.expense.date, $0.position) < ($1.expense.date, $1.position) }.map(\.expense)
        if let known = knownRowCount(connection) {
            salvage.unreadable = max(known - positionsRead, 0) + bad
        } else {
            salvage.unreadable = skipped.isEmpty ? bad : nil
        }
        if !skipped.isEmpty {
            salvage.detail = "rows at positions " + skipped.map { range in
                range.upperBound == Int64.max ? "\(range.lowerBound) and after" : "\(range.lowerBound)–\(range.upperBound)"
            }.joined(separator: ", ") + " could not be reached"
        }
        return salvage
    }

    /// The smallest `start` past `from` (where a read failed) from which a seek succeeds: it returns `start` and
    /// whether a row is at or after it; `nil` when no seek past `from` succeeds.
    private static func firstReachable(from: Int64, _ next: SQLiteStatement) -> (Int64, Bool)? {
        func probe(_ start: Int64) -> Bool? {
            do { return try next.first([SQLiteValue(start)]) { _ in true } ?? false } catch { return nil }
        }
        var step: Int64 = 1
        var failed = from
        while true {
            let (start, overflow) = from.addingReportingOverflow(step)
            guard !overflow else { return nil }
            if let found = probe(start) {
                // Narrow (failed, start] to the smallest start that still works.
                var (low, high, foundAtHigh) = (failed, start, found)
                while high - low > 1 {
                    let middle = low + (high - low) / 2
                    if let foundHere = probe(middle) { (high, foundAtHigh) = (middle, foundHere) } else { low = middle }
                }
                return (high, foundAtHigh)
            }
            failed = start
            step = step.multipliedReportingOverflow(by: 2).overflow ? Int64.max : step * 2
        }
    }

    /// How many rows the expense table has, counted through the `expense_by_id` index; `nil` when it cannot be
    /// read either.
    private static func knownRowCount(_ connection: SQLiteConnection) -> Int? {
        try? connection.prepare("SELECT count(*) FROM expense INDEXED BY expense_by_id WHERE id IS NOT NULL")
            .first { $0.int(0) }
    }

    /// One row as an expense and whether it is a deletion; `nil` when it does not hold a valid expense.
    private static func decode(_ row: SQLiteRow) -> (Expense, Bool)? {
        // Every rule is checked again: the row is read from a damaged file.
        guard let id = UUIDBlob.uuid(row.blob(1)) ?? UUIDText.parse(row.text(1)),
              let read = ExpenseColumns.read(id: id, from: row, at: 2),
              let expense = try? ExpenseValidator.validateStored(read.draft) else { return nil }
        return (expense, row.int64(2 + ExpenseColumns.count) != 0)
    }
}
