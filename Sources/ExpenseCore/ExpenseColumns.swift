import FoundationEssentials

/// An expense's values as the columns of a database row, declared once for every table that holds an expense:
/// the daemon's `records` (SQLite and PostgreSQL) and the cache's `expense`, `server_copy` and `conflict`.
/// Every statement names the columns through ``list(_:prefix:)`` and reads or writes them through
/// ``read(id:from:at:)`` and ``write(_:to:)``, so no statement spells or counts them itself.
///
/// In this order: `amount` (minor units), `currency` (its code), `category`, `day` (``CalendarDay/ordinal``),
/// `note`, and `extras`, every optional field in one text (``ExpenseExtras``: empty for an expense that uses none).
/// A new optional field is a key of ``ExpenseExtras``, not a column: no migration. Drafts, whose fields may be
/// missing, are the nullable ``draftNames`` (the date as its text; `extras` names only the fields given).
package enum ExpenseColumns {
    /// The value columns' names, in their order.
    package static let names = ["amount", "currency", "category", "day", "note", extrasName]
    /// A draft's columns (the outbox's and a conflict's own side), each nullable but `extras`: `date` holds the text
    /// typed.
    package static let draftNames = ["amount", "currency", "category", "date", "note", extrasName]
    /// The optional fields' column.
    package static let extrasName = "extras"
    /// Each value column's type, in ``names``' order.
    package static let types: [ExpenseColumnType] = [.integer, .currency, .text, .day, .text, .extras]
    /// How many columns an expense takes.
    package static let count = Int32(names.count)
    /// Each column's position among the expense's columns (add the position of the first).
    package static let amount: Int32 = 0, currency: Int32 = 1, category: Int32 = 2, day: Int32 = 3, note: Int32 = 4,
                       extras: Int32 = 5

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
        try row.text(expense.hasOptionalFields ? ExpenseExtras.text(of: expense) : "")
    }

    /// The expense `id` whose values start at column `first`, or `nil` when a value does not decode (a row
    /// changed behind the program's back): the values were validated before they were written.
    @inline(__always)
    package static func read(id: UUID, from row: some ExpenseColumnReader, at first: Int32) -> Expense? {
        let amount = row.int64(first + Self.amount)
        guard (1...ExpenseRules.maximumAmount).contains(amount), let currency = Currency(code: row.text(first + Self.currency)),
              let day = CalendarDay(ordinal: Int(row.int64(first + Self.day))) else { return nil }
        let category = row.text(first + Self.category), note = row.text(first + Self.note)
        let extras = row.text(first + Self.extras)
        // No optional field: the usual expense, read without parsing any.
        guard !extras.isEmpty else {
            return Expense(id: id, amount: amount, currency: currency, category: category, date: day, note: note)
        }
        guard let values = ExpenseExtras.values(in: extras) else { return nil }
        var paidBy: UUID?, split: SplitSpec?, charged: Int64?, parts: ExpenseParts?
        if let text = values[ExpenseExtras.Key.paidBy.rawValue] {
            guard let payer = UUIDText.parse(text) else { return nil }
            paidBy = payer
        }
        if let text = values[ExpenseExtras.Key.split.rawValue] {
            guard let spec = try? SplitSpec(text: text) else { return nil }
            split = spec
        }
        if let text = values[ExpenseExtras.Key.charged.rawValue] {
            guard let value = ExpenseExtras.charged(text) else { return nil }
            charged = value
        }
        if let text = values[ExpenseExtras.Key.parts.rawValue] {
            guard let read = try? ExpenseParts(text: text) else { return nil }
            parts = read
        }
        let tags = values[ExpenseExtras.Key.tags.rawValue].map(ExpenseTags.parse) ?? []
        return Expense(id: id, amount: amount, currency: currency, category: category, date: day, note: note,
                       paidBy: paidBy, split: split, charged: charged, tags: tags, parts: parts,
                       source: values[ExpenseExtras.Key.source.rawValue] ?? "")
    }

    /// An expense's values by position as a record's object is written from them (``withValues(of:_:)``, a pull
    /// page from a store's row): the first five columns' positions, then each optional field's, in
    /// ``ExpenseExtras/Key``'s order.
    package enum Value {
        package static let paidBy: Int32 = 5, split: Int32 = 6, charged: Int32 = 7, tags: Int32 = 8, parts: Int32 = 9,
                           source: Int32 = 10
        /// The position of the optional field `key`.
        package static func position(of key: ExpenseExtras.Key) -> Int32 { paidBy + Int32(key.rawValue) }
        /// How many values an expense has.
        package static let count = Int(ExpenseColumns.extras) + ExpenseExtras.Key.allCases.count
    }

    /// Each value's text bytes by ``Value`` position (an integer's: empty), as ``withValues(of:_:)`` lends them.
    /// Its size is a literal, as an inline array's must be: ``Value/count`` (`RecordObjectRowTests` checks).
    package typealias Texts = InlineArray<11, UnsafeBufferPointer<UInt8>>
    /// Each value's integer by ``Value`` position (a text's: 0).
    package typealias Integers = InlineArray<11, Int64>

    /// Calls `body` with `expense`'s values by ``Value`` position, as ``write(_:to:)`` writes them
    /// (`RecordObjectRowTests` checks): its integers, and the UTF-8 bytes of its texts lent for the call, each string's own bytes, no copy
    /// (a daemon's answer writes a record's object through this for each applied `put`).
    package static func withValues(of expense: Expense, _ body: (Integers, Texts) -> Void) {
        var integers = Integers(repeating: 0)
        integers[Int(amount)] = expense.amount
        integers[Int(day)] = Int64(expense.date.ordinal)
        integers[Int(Value.charged)] = expense.chargedValue
        var texts = Texts(repeating: UnsafeBufferPointer(start: nil, count: 0))
        var code = expense.currency.code, category = expense.category, note = expense.note, paidBy = expense.paidByText
        var split = expense.splitText, tags = expense.tags.isEmpty ? "" : expense.tagsText, parts = expense.partsText
        var source = expense.source
        code.withUTF8 { texts[Int(Self.currency)] = $0
            category.withUTF8 { texts[Int(Self.category)] = $0
                note.withUTF8 { texts[Int(Self.note)] = $0
                    paidBy.withUTF8 { texts[Int(Value.paidBy)] = $0
                        split.withUTF8 { texts[Int(Value.split)] = $0
                            tags.withUTF8 { texts[Int(Value.tags)] = $0
                                parts.withUTF8 { texts[Int(Value.parts)] = $0
                                    source.withUTF8 { texts[Int(Value.source)] = $0
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

    /// Writes a draft's fields in ``draftNames``' order, a missing one as NULL (in `extras`: no entry). A value
    /// holding the extras' separator, which no valid one does, is refused as that field's invalid text.
    package static func write(_ draft: ExpenseDraft, to row: inout some ExpenseColumnWriter) throws {
        try row.integer(draft.amount)
        try row.text(draft.currency?.text)
        try row.text(draft.category)
        try row.text(draft.date?.text)
        try row.text(draft.note)
        try row.text(ExpenseExtras.text(of: draft).get())
    }

    /// The draft whose fields start at column `first` (NULL: not given). An `extras` text that is not its form
    /// (changed behind the program's back) gives no optional field.
    package static func readDraft(from row: some ExpenseColumnReader, at first: Int32) -> ExpenseDraft {
        let values = ExpenseExtras.values(in: row.optionalText(first + extras) ?? "") ?? []
        func value(_ key: ExpenseExtras.Key) -> String? { values.indices.contains(key.rawValue) ? values[key.rawValue] : nil }
        return ExpenseDraft(amount: row.optionalInt64(first + amount), currency: row.optionalText(first + currency),
                            category: row.optionalText(first + category), date: row.optionalText(first + day),
                            note: row.optionalText(first + note), paidBy: value(.paidBy), split: value(.split),
                            charged: value(.charged).flatMap { Int64($0) }, tags: value(.tags).map(ExpenseTags.parse),
                            parts: value(.parts), source: value(.source))
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
    /// The optional fields as one text (``ExpenseExtras``).
    case extras
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
