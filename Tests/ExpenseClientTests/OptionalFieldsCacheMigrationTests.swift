import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite
import Testing
import TestSupport
@testable import ExpenseClient

/// Migration 19: the optional fields move into one column, `extras`, in every table of the cache. A cache written
/// before, each field in a column of its own, reads back its expenses, server copies, queued drafts and conflicts
/// exactly: a draft keeps which fields it gives (an empty one clears the field) and which it leaves out (NULL).
@Suite struct OptionalFieldsCacheMigrationTests {
    @Test func aCacheOfSeparateColumnsReadsBackExactly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("cache.sqlite")
        let payer = UUID(), other = UUID(), shared = UUID(), plain = UUID(), conflicted = UUID()
        let members = [payer, other].map { $0.uuidString.lowercased() }.sorted().joined(separator: ",")
        let everyField = try ExpenseValidator.validate(ExpenseDraft(
            id: shared.uuidString, amount: 6000, currency: "EUR", category: "trip", date: "2026-12-03", note: "all",
            paidBy: payer.uuidString.lowercased(), split: "equal:" + members, charged: 6400, tags: ["b", "caf\u{E9}"],
            parts: "1000:food", source: "CARD parts=1:x\twith tab"))
        let none = try ExpenseValidator.validate(ExpenseDraft(id: plain.uuidString, amount: 5, currency: "USD", category: "c",
                                                               date: "2026-12-01", note: ""))
        let theirs = try ExpenseValidator.validate(ExpenseDraft(id: conflicted.uuidString, amount: 70, currency: "USD",
                                                                category: "c", date: "2026-12-02", note: "", tags: ["t"]))
        let queued = ExpenseDraft(note: "edit", paidBy: "", charged: 0, source: "bank text")
        let mine = ExpenseDraft(split: "", tags: [], parts: "")
        do {
            let connection = try SQLiteConnection(path: path, mode: .create)
            try SQLiteExpenseStore.defineFunctions(on: connection)
            try connection.migrate(Array(SQLiteExpenseStore.migrations.prefix(18)))
            try SQLiteExpenseStore.rebuildIndexes(connection: connection, tables: SQLiteCacheTables(connection: connection, location: path))
            let expenseColumns = "amount, currency, category, day, note, paid_by, split, charged, tags, parts, source"
            func values(_ expense: Expense) -> [SQLiteValue] {
                [.integer(expense.amount), .text(expense.currency.code), .text(expense.category), .integer(Int64(expense.date.ordinal)),
                 .text(expense.note), .text(expense.paidByText), .text(expense.splitText), .integer(expense.chargedValue),
                 .text(expense.tagsText), .text(expense.partsText), .text(expense.source)]
            }
            for expense in [everyField, none, theirs] {
                try connection.prepare("""
                    INSERT INTO expense (id, \(expenseColumns), base_version, deleted) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 1, 0)
                    """).run([.id(expense.id)] + values(expense))
                try connection.prepare("""
                    INSERT INTO server_copy (id, \(expenseColumns), version, seq, deleted) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 1, 1, 0)
                    """).run([.id(expense.id)] + values(expense))
            }
            try connection.prepare("""
                INSERT INTO outbox (position, type, expense_id, base_version, note, paid_by, split, charged, tags, parts, source)
                VALUES (1, 'put', ?1, 1, 'edit', '', NULL, 0, NULL, NULL, 'bank text')
                """).run([.id(plain)])
            try connection.prepare("""
                INSERT INTO conflict (expense_id, found, mine_type, mine_base_version, mine_split, mine_tags, mine_parts,
                    theirs_amount, theirs_currency, theirs_category, theirs_day, theirs_note, theirs_paid_by, theirs_split,
                    theirs_charged, theirs_tags, theirs_parts, theirs_source, theirs_version, theirs_seq, theirs_deleted)
                VALUES (?1, 1, 'put', 1, '', '', '', ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 2, 2, 0)
                """).run([.id(conflicted)] + values(theirs))
        }
        let store = try SQLiteExpenseStore(path: path)
        #expect(try store.connection.userVersion == SQLiteExpenseStore.migrations.count)
        for expense in [everyField, none, theirs] {
            #expect(try store.record(id: expense.id)?.expense == expense)
            #expect(try store.tables.serverCopy(id: expense.id)?.expense == expense)
        }
        #expect(try store.pendingMutations(limit: 10).map(\.fields) == [queued])
        let conflict = try #require(try store.conflicts().first)
        #expect(conflict.mineFields == mine && conflict.theirs.expense == theirs)
        // Totals by category divide the expense with parts, found by its entry (not by a source that names one).
        let buckets = try store.buckets(matching: ExpenseFilter())
        #expect(buckets.filter { $0.category == "food" }.map(\.amount) == [1000])
        for table in ["expense", "server_copy", "outbox", "conflict"] {
            let columns = try store.connection.prepare("SELECT name FROM pragma_table_info('\(table)')").map { $0.text(0) }
            #expect(!columns.contains { $0.hasSuffix("paid_by") || $0.hasSuffix("source") }, "\(table)")
        }
    }
}
