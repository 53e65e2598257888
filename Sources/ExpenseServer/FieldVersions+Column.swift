import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// How both SQL stores keep a record's field versions: one text column, `field_versions`.
///
/// The text is each conflict group's version in ``ExpenseCore/ExpenseField/conflictGroups``' order, in decimal,
/// joined by commas, without the trailing groups at version 1: a record whose fields are all at version 1 (every
/// creation, and most rows of a ledger) holds the empty text, which costs a row no byte beyond its column's header;
/// one whose note last changed at version 4 holds `1,1,1,4`.
///
/// A group at the end of the order that a row's text does not reach reads as version 1, as a new column's default
/// did: a field with a conflict group of its own, added after the others, needs no migration of any store. The order
/// is the stored texts', so a new group goes last (`FieldVersionsColumnTests` holds today's order).
extension FieldVersions {
    /// The column's name.
    static let columnName = "field_versions"

    /// The column's text for these versions.
    var columnText: String {
        var end = groups.count
        while end > 0, groups[end - 1] == 1 { end -= 1 }
        guard end > 0 else { return "" }
        var text = String(groups[0])
        for index in 1..<end { text += "," + String(groups[index]) }
        return text
    }

    /// The versions a column's text holds; `nil` for a text this program does not write: anything but positive
    /// decimal versions joined by commas, or more versions than there are conflict groups.
    init?(columnText text: String) {
        var groups = ExpenseField.PerConflictGroup<Int64>(repeating: 1)
        guard !text.isEmpty else {
            self.init(groups: groups)
            return
        }
        var index = 0, value: Int64 = 0, digits = 0
        func finish() -> Bool {
            guard digits > 0, value > 0, index < groups.count else { return false }
            groups[index] = value
            index += 1
            value = 0
            digits = 0
            return true
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: ","):
                guard finish() else { return nil }
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                // 18 digits are below Int64.max: a longer number is no version this program wrote.
                guard digits < 18 else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
                digits += 1
            default:
                return nil
            }
        }
        guard finish() else { return nil }
        self.init(groups: groups)
    }

    @inline(__always)
    func write(to row: inout some RecordColumnWriter) throws {
        try row.text(columnText)
    }

    /// The versions in `column` of a row of record `id`. A text this program does not write means the database
    /// was changed behind the daemon's back.
    init(row: some RecordColumnReader, at column: Int32, id: UUID) throws {
        let text = row.text(column)
        guard let versions = FieldVersions(columnText: text) else {
            throw LedgerError.storageFailed("record \(UUIDText.lowercased(id)) has unreadable field versions in the database: \(text.debugDescription)")
        }
        self = versions
    }
}

extension FieldVersions {
    /// The `<group>_version` columns both stores kept until the versions shared one column (the SQLite store's
    /// migration 17, the PostgreSQL store's 13), frozen as they were shipped.
    static let separateColumns = ["money_version", "category_version", "date_version", "note_version", "paidBy_version",
                                  "tags_version", "source_version"]

    /// An SQL expression of a row of ``separateColumns`` giving its ``columnText``; `text` writes a column's name as
    /// an expression of type text (SQLite converts an integer itself).
    static func textOfSeparateColumns(_ text: (String) -> String) -> String {
        // The branch of the last group not at 1 lists the groups through it.
        let branches = separateColumns.indices.reversed().map { last in
            "WHEN \(separateColumns[last]) <> 1 THEN "
                + separateColumns[...last].map(text).joined(separator: " || ',' || ")
        }
        return "CASE " + branches.joined(separator: " ") + " ELSE '' END"
    }
}
