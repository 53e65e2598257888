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

/// Gives each row its id and checks that no id is given twice, for either file format.
struct ImportRowBuilder {
    private var occurrences: [[String]: Int] = [:]
    private var lineOfId: [UUID: Int] = [:]
    private(set) var rows: [ImportRow] = []

    /// Validates one row's fields (an `id` of `nil` or empty: derived from the content and its occurrence).
    /// - Throws: ``ExpenseCore/ValidationError``, or ``ImportError/RowProblem`` for an id given twice.
    mutating func add(line: Int, id: String?, amount: Int64, currency: Currency, category: String, date: String,
                      note: String) throws {
        let given = !(id ?? "").isEmpty
        let placeholder = "00000000-0000-0000-0000-000000000000"
        let valid = try ExpenseValidator.validate(ExpenseDraft(
            id: .text(given ? id ?? placeholder : placeholder), amount: amount, currency: .value(currency), category: category,
            date: .text(date), note: note))
        var expense = valid
        if !given {
            // The id is derived from the validated (trimmed) values, so "food" and " food " are one expense.
            let key = [valid.date.description, String(valid.amount), valid.currency.code, valid.category, valid.note]
            let occurrence = occurrences[key, default: 0] + 1
            occurrences[key] = occurrence
            expense = Expense(id: ImportIdentity.id(date: valid.date, amount: valid.amount, currency: valid.currency,
                                                    category: valid.category, note: valid.note, occurrence: occurrence),
                              amount: valid.amount, currency: valid.currency, category: valid.category, date: valid.date,
                              note: valid.note)
        }
        if let earlier = lineOfId[expense.id] {
            throw ImportError.RowProblem(line: line, code: "duplicate_id", message: "the id \(expense.idString) is also on line \(earlier)")
        }
        lineOfId[expense.id] = line
        rows.append(ImportRow(line: line, expense: expense, idGiven: given))
    }
}
