import Foundation

/// An expense's values as the columns of a database row, declared once for every table that holds an expense:
/// the daemon's `records` (SQLite and PostgreSQL) and the cache's `expense`, `server_copy` and `conflict`.
/// Every statement names the columns through ``list(prefix:)`` and reads or writes them through ``read(id:from:at:)``
/// and ``write(_:to:)``, so a new expense field is a column here (and one migration per store), not an edit of
/// every statement.
///
/// In this order: `amount` (minor units), `currency` (its code), `category`, `day` (``CalendarDay/ordinal``),
/// `note`, `paid_by` (the member's lower-case id, empty for none), `split` (``SplitSpec/text``, empty for none),
/// `charged` (minor units of the ledger's currency, 0 for none), `tags` (``Expense/tagsText``, empty for none),
/// `parts` (``ExpenseParts/text``, empty for none), `source` (``Expense/source``, empty for none).
/// Drafts, whose fields may be missing, are the nullable ``draftNames`` (the date as its text).
package enum ExpenseColumns {
    /// The value columns' names, in their order.
    package static let names = ["amount", "currency", "category", "day", "note", "paid_by", "split", "charged", "tags", "parts", "source"]
    /// A draft's columns (the outbox's and a conflict's own side), each nullable: `date` holds the text typed.
    package static let draftNames = ["amount", "currency", "category", "date", "note", "paid_by", "split", "charged", "tags", "parts", "source"]
    /// Each value column's type, in ``names``' order.
    package static let types: [ExpenseColumnType] = [.integer, .currency, .text, .day, .text, .text, .text, .integer, .text, .text, .text]
    /// How many columns an expense takes.
    package static let count = Int32(names.count)
    /// Each value's position among the expense's columns (add the position of the first).
    package static let amount: Int32 = 0, currency: Int32 = 1, category: Int32 = 2, day: Int32 = 3, note: Int32 = 4,
                       paidBy: Int32 = 5, split: Int32 = 6, charged: Int32 = 7, tags: Int32 = 8, parts: Int32 = 9,
                       source: Int32 = 10

    /// The names as an SQL column list, each after `prefix` (`mine_`, `theirs_`, `excluded.`).
    package static func list(_ names: [String] = names, prefix: String = "") -> String {
        names.map { prefix + $0 }.joined(separator: ", ")
    }

    /// `name = excluded.name` for each column: the SET list of an upsert that replaces the values.
    package static func replacingExcluded(_ names: [String] = names) -> String {
        names.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    }

    /// Writes `expense`'s values, one column after another in ``names``' order. Inlinable: a group commit binds
    /// each row through it, and a call through the writer's witness table per value is measurable there.
    @inlinable
    package static func write(_ expense: Expense, to row: inout some ExpenseColumnWriter) throws {
        try row.integer(expense.amount)
        try row.text(expense.currency.code)
        try row.text(expense.category)
        try row.integer(Int64(expense.date.ordinal))
        try row.text(expense.note)
        try row.text(expense.paidByText)
        try row.text(expense.splitText)
        try row.integer(expense.chargedValue)
        try row.text(expense.tagsText)
        try row.text(expense.partsText)
        try row.text(expense.source)
    }

    /// The expense `id` whose values start at column `first`, or `nil` when a value does not decode (a row
    /// changed behind the program's back): the values were validated before they were written.
    @inline(__always)
    package static func read(id: UUID, from row: some ExpenseColumnReader, at first: Int32) -> Expense? {
        let amount = row.int64(first + Self.amount)
        guard (1...ExpenseRules.maximumAmount).contains(amount), let currency = Currency(code: row.text(first + Self.currency)),
              let day = CalendarDay(ordinal: Int(row.int64(first + Self.day))) else { return nil }
        // No payer and no split: the usual expense, read without parsing either.
        let payerText = row.text(first + Self.paidBy), splitText = row.text(first + Self.split)
        var paidBy: UUID?, split: SplitSpec?
        if !payerText.isEmpty {
            guard let payer = UUIDText.parse(payerText) else { return nil }
            paidBy = payer
        }
        if !splitText.isEmpty {
            guard let spec = try? SplitSpec(text: splitText) else { return nil }
            split = spec
        }
        let charged = row.int64(first + Self.charged)
        guard (0...ExpenseRules.maximumAmount).contains(charged) else { return nil }
        let tagsText = row.text(first + Self.tags)
        var parts: ExpenseParts?
        let partsText = row.text(first + Self.parts)
        if !partsText.isEmpty {
            guard let read = try? ExpenseParts(text: partsText) else { return nil }
            parts = read
        }
        return Expense(id: id, amount: amount, currency: currency, category: row.text(first + Self.category), date: day,
                       note: row.text(first + Self.note), paidBy: paidBy, split: split, charged: charged == 0 ? nil : charged,
                       tags: tagsText.isEmpty ? [] : ExpenseTags.parse(tagsText), parts: parts,
                       source: row.text(first + Self.source))
    }

    /// Each value column's text bytes by position (an integer column's: empty), as ``withValues(of:_:)`` lends
    /// them. Its size is a literal, as an inline array's must be: ``count`` (`RecordObjectRowTests` checks).
    package typealias Texts = InlineArray<11, UnsafeBufferPointer<UInt8>>
    /// Each value column's integer by position (a text column's: 0).
    package typealias Integers = InlineArray<11, Int64>

    /// Calls `body` with `expense`'s values by position, as ``write(_:to:)`` writes them (`RecordObjectRowTests`
    /// checks): its integers, and the UTF-8 bytes of its texts lent for the call, each string's own bytes, no copy
    /// (a daemon's answer writes a record's object through this for each applied `put`).
    package static func withValues(of expense: Expense, _ body: (Integers, Texts) -> Void) {
        var integers = Integers(repeating: 0)
        integers[Int(amount)] = expense.amount
        integers[Int(day)] = Int64(expense.date.ordinal)
        integers[Int(charged)] = expense.chargedValue
        var texts = Texts(repeating: UnsafeBufferPointer(start: nil, count: 0))
        var code = expense.currency.code, category = expense.category, note = expense.note, paidBy = expense.paidByText
        var split = expense.splitText, tags = expense.tags.isEmpty ? "" : expense.tagsText, parts = expense.partsText
        var source = expense.source
        code.withUTF8 { texts[Int(Self.currency)] = $0
            category.withUTF8 { texts[Int(Self.category)] = $0
                note.withUTF8 { texts[Int(Self.note)] = $0
                    paidBy.withUTF8 { texts[Int(Self.paidBy)] = $0
                        split.withUTF8 { texts[Int(Self.split)] = $0
                            tags.withUTF8 { texts[Int(Self.tags)] = $0
                                parts.withUTF8 { texts[Int(Self.parts)] = $0
                                    source.withUTF8 { texts[Int(Self.source)] = $0
                                        body(integers, texts)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Writes a draft's fields in ``draftNames``' order, a missing one as NULL.
    package static func write(_ draft: ExpenseDraft, to row: inout some ExpenseColumnWriter) throws {
        try row.integer(draft.amount)
        try row.text(draft.currency?.text)
        try row.text(draft.category)
        try row.text(draft.date?.text)
        try row.text(draft.note)
        try row.text(draft.paidBy)
        try row.text(draft.split)
        try row.integer(draft.charged)
        try row.text(draft.tags.map(ExpenseTags.text))
        try row.text(draft.parts)
        try row.text(draft.source)
    }

    /// The draft whose fields start at column `first` (NULL: not given).
    package static func readDraft(from row: some ExpenseColumnReader, at first: Int32) -> ExpenseDraft {
        ExpenseDraft(amount: row.optionalInt64(first + amount), currency: row.optionalText(first + currency),
                     category: row.optionalText(first + category), date: row.optionalText(first + day),
                     note: row.optionalText(first + note), paidBy: row.optionalText(first + paidBy),
                     split: row.optionalText(first + split), charged: row.optionalInt64(first + charged),
                     tags: row.optionalText(first + tags).map(ExpenseTags.parse),
                     parts: row.optionalText(first + parts), source: row.optionalText(first + source))
    }
}

/// What a value column holds, for a store whose columns are typed.
package enum ExpenseColumnType: Sendable {
    /// A 64-bit integer.
    case integer
    /// UTF-8 text.
    case text
    /// A currency's ISO 4217 code, as text.
    case currency
    /// A ``CalendarDay/ordinal``, which fits 32 bits.
    case day
}

/// A row being written one column after another (a bound statement, an array of values, columns of arrays).
package protocol ExpenseColumnWriter {
    mutating func integer(_ value: Int64) throws
    mutating func text(_ value: String) throws
    /// NULL.
    mutating func null() throws
}

extension ExpenseColumnWriter {
    /// `value`, or NULL for `nil`.
    package mutating func integer(_ value: Int64?) throws {
        if let value { try integer(value) } else { try null() }
    }

    /// `value`, or NULL for `nil`.
    package mutating func text(_ value: String?) throws {
        if let value { try text(value) } else { try null() }
    }
}

/// A row read by column position.
package protocol ExpenseColumnReader {
    func int64(_ column: Int32) -> Int64
    func text(_ column: Int32) -> String
    func isNull(_ column: Int32) -> Bool
}

extension ExpenseColumnReader {
    package func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
    package func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }
}
