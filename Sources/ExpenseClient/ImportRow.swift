import ExpenseCore
import Foundation

/// One validated row of an import file, with its id: the file's own (an `id` column or key) or the
/// deterministic one of ``ImportIdentity``.
package struct ImportRow: Hashable, Sendable {
    /// The physical line of a CSV row (the header is line 1), or the position of a JSON item (from 1).
    package var line: Int
    package var expense: Expense
    /// Whether the file gave the id (else it was derived from the content).
    package var idGiven: Bool

    package init(line: Int, expense: Expense, idGiven: Bool) {
        self.line = line
        self.expense = expense
        self.idGiven = idGiven
    }
}

extension ImportRow {
    /// `unknown_member` or `member_left` for each of `rows` whose payer or split names a member `members` does not
    /// have, or one who has left: the daemon refuses a new expense naming either, so an import refuses it before
    /// anything is stored. Only new rows need this (``LocalLedger/importRows(_:dryRun:)``'s `new`): a row already
    /// present was accepted when that member was still active.
    package static func memberProblems(in rows: [ImportRow], members: [Member], unit: String = "line") -> [ImportError.RowProblem] {
        let byId = Dictionary(members.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return rows.compactMap { row in
            guard let (error, _) = Member.refusal(of: row.expense, replacing: nil, member: { byId[$0] }) else { return nil }
            return ImportError.RowProblem(line: row.line, code: error.code,
                                          message: error.message + "; leave the row out, or import into a ledger where they are a member",
                                          unit: unit)
        }
    }
}

/// Gives each row its id and checks that no id is given twice, for either file format.
struct ImportRowBuilder {
    private var occurrences: [[String]: Int] = [:]
    private var lineOfId: [UUID: Int] = [:]
    private(set) var rows: [ImportRow] = []

    /// Validates one row's fields (an `id` of `nil` or empty: derived from the content and its occurrence);
    /// what a creation may leave out gets its default (``ExpenseCore/ExpenseDraft/completeCreation(currency:)``).
    /// - Throws: ``ExpenseCore/ValidationError``, or ``ImportError/RowProblem`` for an id given twice.
    mutating func add(line: Int, id: String?, fields: ExpenseDraft, currency: Currency) throws {
        let given = !(id ?? "").isEmpty
        let placeholder = "00000000-0000-0000-0000-000000000000"
        var draft = fields
        draft.id = .text(given ? id ?? placeholder : placeholder)
        draft.completeCreation(currency: currency)
        let valid = try ExpenseValidator.validate(draft)
        var expense = valid
        if !given {
            // The id is derived from the validated (trimmed) values, so "food" and " food " are one expense. Only
            // these five: a file imported again after a field was added must get the same ids.
            let key = [valid.date.description, String(valid.amount), valid.currency.code, valid.category, valid.note]
            let occurrence = occurrences[key, default: 0] + 1
            occurrences[key] = occurrence
            expense = valid.with(id: ImportIdentity.id(date: valid.date, amount: valid.amount, currency: valid.currency,
                                                       category: valid.category, note: valid.note, occurrence: occurrence))
        }
        if let earlier = lineOfId[expense.id] {
            throw ImportError.RowProblem(line: line, code: "duplicate_id", message: "the id \(expense.idString) is also on line \(earlier)")
        }
        lineOfId[expense.id] = line
        rows.append(ImportRow(line: line, expense: expense, idGiven: given))
    }
}
