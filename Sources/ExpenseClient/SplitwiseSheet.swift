import ExpenseCore
import Foundation

/// One expense or payment row of a Splitwise export, read but not yet turned into an expense or a transfer.
package struct SplitwiseRow: Hashable, Sendable {
    /// The physical line the row starts on (the header is line 1).
    package var line: Int
    package var date: CalendarDay
    /// `Description` as written: an expense's note.
    package var description: String
    /// `Category`, trimmed; empty when the row has none.
    package var category: String
    /// `Cost`, in minor units of ``currency``.
    package var cost: Int64
    package var currency: Currency
    /// Each member column's value in minor units, in the header's order: what the row did to that member's
    /// balance (above zero: paid more than their share; below zero: owes). A valid row's values add up to zero.
    package var values: [Int64]

    package init(line: Int, date: CalendarDay, description: String, category: String, cost: Int64, currency: Currency,
                 values: [Int64]) {
        self.line = line
        self.date = date
        self.description = description
        self.category = category
        self.cost = cost
        self.currency = currency
        self.values = values
    }

    /// Whether the row is a payment between two members (Splitwise's category `Payment`) rather than an expense.
    package var isPayment: Bool { ExactText.same(category, SplitwiseImporter.paymentCategory) }
}

/// A `Total balance` row of a Splitwise export: each member's balance in one currency when the file was written.
package struct SplitwiseTotal: Hashable, Sendable {
    package var line: Int
    package var currency: Currency
    /// Each member column's balance in minor units, in the header's order.
    package var values: [Int64]
}

/// A Splitwise export as read, before any row is turned into a record.
package struct SplitwiseSheet: Hashable, Sendable {
    /// The member columns' names, trimmed and checked as member names, in the header's order.
    package var members: [String]
    /// The expense and payment rows, in file order.
    package var rows: [SplitwiseRow]
    /// The `Total balance` rows (one per currency).
    package var totals: [SplitwiseTotal]
}

/// One member's share of an expense row, by member column.
package struct SplitwiseShare: Hashable, Sendable {
    /// The member's column among ``SplitwiseSheet/members``.
    package var column: Int
    /// The share in minor units, above zero.
    package var amount: Int64

    package init(column: Int, amount: Int64) {
        self.column = column
        self.amount = amount
    }
}

/// What one row of a Splitwise export is here (``SplitwiseImporter/entry(of:members:)``).
package enum SplitwiseEntry: Hashable, Sendable {
    /// An expense paid by the member in column `payer`, shared exactly as `shares` say (in column order, each
    /// above zero, adding up to the cost). `payer` is `nil` and `shares` empty for a row that moves nothing
    /// between members (every value zero): an expense with no payer and no split.
    case expense(payer: Int?, shares: [SplitwiseShare])
    /// The member in column `from` paid the member in column `to` back the row's cost.
    case payment(from: Int, to: Int)
}

/// A payment row as the transfer it becomes.
package struct SplitwiseTransfer: Hashable, Sendable {
    /// The physical line of the row.
    package var line: Int
    package var transfer: Transfer
}

/// A Splitwise export as this ledger will hold it: the members to add, the expenses and the transfers, every
/// row validated and every id derived from the file's content (``SplitwiseImporter/read(_:members:)``).
package struct SplitwiseImport: Sendable {
    /// Every member column's member, in the header's order: the ledger's member of that name, or a new one.
    package var members: [Member]
    /// The members the ledger does not have yet, to be added before anything names them.
    package var newMembers: [Member]
    /// One row per expense row of the file, ids derived (``ImportRow/idGiven`` is `false`).
    package var expenses: [ImportRow]
    /// One transfer per payment row, ids derived.
    package var transfers: [SplitwiseTransfer]
    /// Sentences for standard error about what was read but not imported: each `Total balance` row the rows do
    /// not add up to (balances here follow the rows).
    package var warnings: [String]

    /// `member_left` for each of `rows` whose payer or split names a member who has left this ledger: the daemon
    /// refuses a new expense naming one. Only rows that are new need this (``LocalLedger/importRows(_:dryRun:)``'s
    /// `new`): a row already present was accepted when that member was still active.
    package func leftMemberProblems(in rows: [ImportRow]) -> [ImportError.RowProblem] {
        ImportRow.memberProblems(in: rows, members: members)
    }
}
