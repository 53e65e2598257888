import FoundationEssentials

/// An expense's optional fields as the one text column every table that holds an expense keeps them in, `extras`
/// (``ExpenseColumns``): empty for an expense that uses none of them, as most do, so such a row stores and binds one
/// empty text instead of six values.
///
/// The form: one entry per field that is set, `name=value`, in ``Key``'s order, entries joined by U+001F (the
/// unit separator), each value as the field's own column held it before:
/// `paidBy` (the member's lower-case id), `split` (``SplitSpec/text``), `charged` (minor units, decimal), `tags`
/// (``ExpenseTags/text(_:)``), `parts` (``ExpenseParts/text``), `source`. No validated value holds a control
/// character other than tab and newline, so a value never holds the separator and needs no escaping. A draft (the
/// outbox's, a conflict's own side) names each field it gives, an empty value included (which clears the field);
/// a field it leaves out has no entry.
///
/// A new optional field is a new key here: the stores keep the column as it is, and no migration rewrites a row.
package enum ExpenseExtras {
    /// The optional fields, in the order their entries are written.
    package enum Key: Int, CaseIterable, Sendable {
        case paidBy, split, charged, tags, parts, source

        /// The entry's name: the field's, as the wire names it.
        package var name: String { field.rawValue }
    }

    /// Between two entries.
    package static let separator: UInt8 = 0x1F

    /// Each key's name as bytes, by ``Key/rawValue``.
    private static let names: [[UInt8]] = Key.allCases.map { Array($0.name.utf8) }

    /// `expense`'s optional fields: empty when it has none.
    package static func text(of expense: Expense) -> String {
        guard expense.hasOptionalFields else { return "" }
        return joined([expense.paidByText, expense.splitText, expense.charged.map(String.init) ?? "", expense.tagsText,
                       expense.partsText, expense.source].enumerated().compactMap { index, value in
            value.isEmpty ? nil : (Key.allCases[index], value)
        })
    }

    /// The fields `draft` gives, each by its text (an empty one too: it clears the field); a failure when a value
    /// holds the separator, which no valid value does: the draft is refused as that field's invalid text.
    package static func text(of draft: ExpenseDraft) -> Result<String, ValidationError> {
        let given: [(Key, String?)] = [(.paidBy, draft.paidBy), (.split, draft.split), (.charged, draft.charged.map(String.init)),
                                       (.tags, draft.tags.map(ExpenseTags.text)), (.parts, draft.parts), (.source, draft.source)]
        var entries: [(Key, String)] = []
        for (key, value) in given {
            guard let value else { continue }
            guard !value.utf8.contains(separator) else { return .failure(.invalidText(key.field)) }
            entries.append((key, value))
        }
        return .success(joined(entries))
    }

    private static func joined(_ entries: [(Key, String)]) -> String {
        var text = ""
        for (key, value) in entries {
            if !text.isEmpty { text.unicodeScalars.append(Unicode.Scalar(separator)) }
            text += key.name
            text += "="
            text += value
        }
        return text
    }

    /// Calls `body` with each entry of `bytes`, its key and its value's bytes, in order; `false` when `bytes` are
    /// not this form (an unknown or repeated key, keys out of order, an entry without `=`): a row changed behind
    /// the program's back.
    package static func forEachEntry(in bytes: UnsafeBufferPointer<UInt8>,
                                     _ body: (Key, UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
        guard !bytes.isEmpty else { return true }
        var start = 0, next = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != separator { end += 1 }
            guard let equals = bytes[start..<end].firstIndex(of: UInt8(ascii: "=")),
                  let key = key(UnsafeBufferPointer(rebasing: bytes[start..<equals])), key.rawValue >= next else { return false }
            body(key, UnsafeBufferPointer(rebasing: bytes[(equals + 1)..<end]))
            next = key.rawValue + 1
            start = end + 1
        }
        return true
    }

    /// Each key's value in `text`, by ``Key/rawValue`` (`nil`: no entry); `nil` when `text` is not this form.
    package static func values(in text: String) -> [String?]? {
        var values = [String?](repeating: nil, count: Key.allCases.count)
        var text = text
        let valid = text.withUTF8 { bytes in
            forEachEntry(in: bytes) { key, value in values[key.rawValue] = String(decoding: value, as: UTF8.self) }
        }
        return valid ? values : nil
    }

    /// The amount charged as its entry holds it (decimal minor units), or `nil` when it is no amount the rules allow:
    /// the one reading of that entry, whether a store reads a row's expense or writes a pull page straight from it.
    package static func charged(_ text: String) -> Int64? {
        guard let value = Int64(text), (1...ExpenseRules.maximumAmount).contains(value) else { return nil }
        return value
    }

    /// An SQL condition that holds when `column` (an `extras` column) has an entry for `key`. The entry starts the
    /// text or follows a separator, and no value holds one, so the match is exact.
    package static func sqlHolds(_ key: Key, column: String = ExpenseColumns.extrasName, dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite: "instr(char(31) || \(column), char(31) || '\(key.name)=') > 0"
        case .postgres: "strpos(chr(31) || \(column), chr(31) || '\(key.name)=') > 0"
        }
    }

    /// Which database an SQL condition is written for.
    package enum SQLDialect: Sendable { case sqlite, postgres }

    private static func key(_ name: UnsafeBufferPointer<UInt8>) -> Key? {
        for key in Key.allCases where names[key.rawValue].elementsEqual(name) { return key }
        return nil
    }
}

extension ExpenseExtras.Key {
    /// The field this key holds.
    package var field: ExpenseField {
        switch self {
        case .paidBy: .paidBy
        case .split: .split
        case .charged: .charged
        case .tags: .tags
        case .parts: .parts
        case .source: .source
        }
    }
}
