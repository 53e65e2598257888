/// One record of a CSV file and the physical line it starts on (the first line of a file is 1).
package struct CSVRecord: Hashable, Sendable {
    package var line: Int
    package var fields: [String]

    package init(line: Int, fields: [String]) {
        self.line = line
        self.fields = fields
    }
}

/// A CSV file that does not follow RFC 4180.
package enum CSVError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A quoted field is never closed; `line` is where the record starts.
    case unterminatedQuote(line: Int)
    /// A quote inside an unquoted field, or text right after a closing quote.
    case unexpectedQuote(line: Int)

    package var line: Int {
        switch self {
        case .unterminatedQuote(let line), .unexpectedQuote(let line): line
        }
    }

    package var description: String {
        switch self {
        case .unterminatedQuote(let line): "line \(line): a quoted field is never closed"
        case .unexpectedQuote(let line): "line \(line): a quote must open a field or be doubled inside a quoted field"
        }
    }
}

/// RFC 4180 CSV: comma-separated, fields may be quoted with `"`, a quote inside a quoted field is doubled,
/// quoted fields may hold commas and line breaks. Lines end in CRLF or LF (a line break inside a quoted field,
/// CRLF, LF or CR, is read as LF). Empty lines are skipped.
///
/// Written cells are guarded against spreadsheet formulas (``guardFormula(_:)``), and ``unguardFormula(_:)``
/// reads them back exactly.
package enum CSV {
    /// Parses `text` into records, each with the physical line it starts on. `delimiter` separates fields
    /// (`,` by RFC 4180; bank exports often use `;`); it may not be a quote or a line break.
    /// - Throws: ``CSVError``.
    package static func parse(_ text: String, delimiter: Unicode.Scalar = ",") throws(CSVError) -> [CSVRecord] {
        precondition(delimiter != "\"" && delimiter != "\r" && delimiter != "\n", "a delimiter cannot be a quote or a line break")
        // Unicode scalars, not Characters: "\r\n" is one Character, and a quote may combine with what follows.
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = scalars.next()
        if pending == "\u{FEFF}" { pending = scalars.next() } // a byte-order mark is not data
        func next() -> Unicode.Scalar? {
            defer { pending = scalars.next() }
            return pending
        }

        var records: [CSVRecord] = []
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var line = 1
        var recordLine = 1
        var quotedRecord = false

        func endRecord() {
            fields.append(String(field))
            field = String.UnicodeScalarView()
            if !(fields == [""] && !quotedRecord) { records.append(CSVRecord(line: recordLine, fields: fields)) }
            fields = []
            quotedRecord = false
        }

        while let scalar = next() {
            if field.isEmpty, scalar == "\"" {
                // A quoted field: runs to the closing quote, which must be followed by `,`, a line end or the end.
                quotedRecord = true
                while true {
                    guard let inner = next() else { throw .unterminatedQuote(line: recordLine) }
                    if inner == "\"" {
                        if pending == "\"" { _ = next(); field.append("\""); continue }
                        break
                    }
                    if inner == "\r" {
                        // A line break inside a quoted field is read as "\n" whichever line end the file uses
                        // (a note may hold "\n" but no "\r": files written on Windows must import too).
                        if pending == "\n" { _ = next() }
                        line += 1
                        field.append("\n")
                        continue
                    }
                    if inner == "\n" { line += 1 }
                    field.append(inner)
                }
                guard pending == nil || pending == delimiter || pending == "\r" || pending == "\n" else {
                    throw .unexpectedQuote(line: line)
                }
                continue
            }
            switch scalar {
            case delimiter:
                fields.append(String(field))
                field = String.UnicodeScalarView()
            case "\r", "\n":
                if scalar == "\r", pending == "\n" { _ = next() }
                endRecord()
                line += 1
                recordLine = line
            case "\"":
                throw .unexpectedQuote(line: line)
            default:
                field.append(scalar)
            }
        }
        if !field.isEmpty || !fields.isEmpty || quotedRecord { endRecord() }
        return records
    }

    /// One field, formula-guarded (``guardFormula(_:)``), then quoted when it holds a comma, a quote or a line
    /// break, or when it was guarded (OWASP's advice: a guarded cell is also quoted).
    ///
    /// Quotes are doubled scalar by scalar, as ``parse(_:delimiter:)`` reads them: a quote followed by a combining
    /// mark is one `Character` with it, which a replacement by Characters (Foundation's `replacingOccurrences`)
    /// leaves single, and the row could not be read back.
    package static func escape(_ field: String) -> String {
        let guarded = guardFormula(field)
        guard guarded != field || guarded.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
        else { return field }
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in guarded.unicodeScalars {
            quoted.append(scalar)
            if scalar == "\"" { quoted.append("\"") }
        }
        quoted.append("\"")
        return String(quoted)
    }

    /// One record and its line end (`\n`).
    package static func row(_ fields: [String]) -> String {
        fields.map(escape).joined(separator: ",") + "\n"
    }

    /// The characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection").
    static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r"]

    /// `field` as a spreadsheet shows it as text: a field that starts with `=`, `+`, `-`, `@`, a tab or a
    /// carriage return, after any number of `'`, gets one more `'` in front. (The `'`s already there are
    /// counted so that ``unguardFormula(_:)`` can tell a guard from a value that really starts with `'`.)
    package static func guardFormula(_ field: String) -> String {
        needsGuard(field.unicodeScalars.drop { $0 == "'" }.first) ? "'" + field : field
    }

    /// The inverse of ``guardFormula(_:)``: one leading `'` is removed when `'`s are followed by a formula
    /// start. Every other field is returned unchanged, so `unguardFormula(guardFormula(x)) == x` for every `x`.
    package static func unguardFormula(_ field: String) -> String {
        guard field.unicodeScalars.first == "'", needsGuard(field.unicodeScalars.drop { $0 == "'" }.first) else { return field }
        return String(field.unicodeScalars.dropFirst())
    }

    private static func needsGuard(_ first: Unicode.Scalar?) -> Bool { first.map(formulaStarts.contains) ?? false }
}
