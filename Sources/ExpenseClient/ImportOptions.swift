import ExpenseCore

/// How `expense import` reads a file: its format, which column holds which field, and the conventions of a
/// bank's export (delimiter, decimal comma, date format, currency).
package struct ImportOptions: Hashable, Sendable {
    /// The file formats `import` reads.
    package enum Format: String, Hashable, Sendable {
        /// Our CSV export, or a bank's CSV with `columns`.
        case csv
        /// Our JSON export: an array of objects.
        case json
        /// Splitwise's "Export as spreadsheet" CSV (``SplitwiseImporter``): expenses, payments and members. Never
        /// detected: given with `--format splitwise`.
        case splitwise
    }

    /// `nil`: detected (a file whose first character, after white space, is `[` is JSON; anything else is CSV).
    package var format: Format?
    /// `--map`: the header text of the column holding each field; `nil` reads our own header
    /// (`id,date,amount,currency,category,note`, `id` optional, in any order).
    package var columns: [ExpenseField: String]?
    /// The CSV field separator (`--delimiter`).
    package var delimiter: Unicode.Scalar = ","
    /// `--decimal-comma`: amounts are written `1.234,56`.
    package var decimalComma = false
    /// `--date-format`: how the date column is written (default `YYYY-MM-DD`).
    package var dateFormat: ImportDateFormat?
    /// `--currency`: the currency of rows with no (or an empty) currency column; else the configured one.
    package var currency: Currency?
    /// The ledger's members, by whose names a CSV's `paid_by` and `split` columns name them (as `export` writes
    /// them); an id is read as well.
    package var members: [Member] = []

    package init() {}

    /// Whether amounts are read by the bank rules of ``ImportAmount`` (a mapped file or a decimal comma)
    /// rather than strictly as `add` reads them.
    package var bankAmounts: Bool { columns != nil || decimalComma }

    /// The format of `text`: the one asked for, else detected.
    package func format(of text: Substring) -> Format {
        if let format { return format }
        let first = text.unicodeScalars.first { !($0 == "\u{FEFF}" || $0.properties.isWhitespace) }
        return first == "[" ? .json : .csv
    }

    /// Parses `--map field=Header,field=Header…` (fields: id, date, amount, currency, category, note; date,
    /// amount and category are required; a header holding `,` or `=` cannot be named).
    /// - Throws: ``ImportOptionError``.
    package static func columns(fromMap text: String) throws(ImportOptionError) -> [ExpenseField: String] {
        var columns: [ExpenseField: String] = [:]
        for pair in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[1].trimmingSpacesAndTabs.isEmpty else { throw .badMap(String(pair)) }
            guard let field = ExpenseField(rawValue: parts[0].trimmingSpacesAndTabs.lowercased()) else {
                throw .unknownField(String(parts[0]))
            }
            guard columns[field] == nil else { throw .repeatedField(field.rawValue) }
            columns[field] = parts[1].trimmingSpacesAndTabs
        }
        for field in [ExpenseField.date, .amount, .category] where columns[field] == nil {
            throw .missingField(field.rawValue)
        }
        return columns
    }

    /// Parses `--delimiter`: exactly one character, not a quote or a line break; `\t` or `tab` is a tab.
    /// - Throws: ``ImportOptionError``.
    package static func delimiter(from text: String) throws(ImportOptionError) -> Unicode.Scalar {
        if text == "\\t" || text == "tab" { return "\t" }
        guard text.unicodeScalars.count == 1, let scalar = text.unicodeScalars.first,
              scalar != "\"", scalar != "\r", scalar != "\n" else { throw .badDelimiter(text) }
        return scalar
    }
}

/// An `import` option that cannot be used (a usage error).
package enum ImportOptionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A `--map` entry is not `field=Header`.
    case badMap(String)
    /// A `--map` field is not one of id, date, amount, currency, category, note.
    case unknownField(String)
    /// A `--map` field is named twice.
    case repeatedField(String)
    /// A required field has no column in `--map`.
    case missingField(String)
    /// `--delimiter` is not one character other than a quote or a line break.
    case badDelimiter(String)
    /// `--date-format` is not made of YYYY, MM, DD and separators.
    case badDateFormat(String)

    package var description: String {
        switch self {
        case .badMap(let entry): "--map entries are field=Header separated by commas, not '\(entry)'"
        case .unknownField(let field): "--map: unknown field '\(field)'; the fields are id, date, amount, currency, category, note"
        case .repeatedField(let field): "--map names \(field) twice"
        case .missingField(let field): "--map needs a column for \(field) (date, amount and category are required)"
        case .badDelimiter(let text): "--delimiter must be one character other than a quote or a line break, not '\(text)'"
        case .badDateFormat(let text): "--date-format must hold YYYY, MM and DD once each, with separators such as . / -, not '\(text)'"
        }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (a cell or option of an import; other text is trimmed with
    /// ExpenseCore's `trimmingWhitespace`).
    var trimmingSpacesAndTabs: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
