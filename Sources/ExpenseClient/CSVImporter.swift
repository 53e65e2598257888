import Foundation
import ExpenseCore
import ExpenseProtocol

/// Why an import file was refused. Nothing is imported from a refused file.
package enum ImportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file is not valid CSV.
    case malformed(CSVError)
    /// The file is not valid JSON (with `--format json`, or a file starting with `[`).
    case malformedJSON(String)
    /// The header does not name the columns needed (`expected` says what was looked for).
    case badHeader(found: String, expected: String)
    /// One or more rows are invalid; each names its physical line (or JSON item). `total` counts them all,
    /// while `problems` holds the first ``ImportError/shownProblems``.
    case invalidRows([RowProblem], total: Int)

    /// How many bad rows are listed at most.
    package static let shownProblems = 50

    /// One bad row.
    package struct RowProblem: Error, Hashable, Sendable, CustomStringConvertible {
        package var line: Int
        /// A validation code (`invalid_amount`, …), `invalid_row` for a wrong number of fields or a wrong JSON
        /// type, or `duplicate_id` for an id given twice.
        package var code: String
        package var message: String
        /// `line` for CSV, `item` for a JSON array element.
        package var unit = "line"

        package init(line: Int, code: String, message: String, unit: String = "line") {
            self.line = line
            self.code = code
            self.message = message
            self.unit = unit
        }

        package var description: String { "\(unit) \(line): \(code): \(message)" }
    }

    package var description: String {
        switch self {
        case .malformed(let error): "invalid_csv: \(error)"
        case .malformedJSON(let reason): "invalid_json: \(reason)"
        case .badHeader(let found, let expected):
            "invalid_header: line 1: expected \(expected), found \(DisplayText.quoted(found))"
        case .invalidRows(let problems, _):
            problems.map(\.description).joined(separator: "\n")
        }
    }
}

/// Turns a CSV file into validated rows: our export (`id,date,amount,currency,category,note`, `id` optional,
/// columns in any order, amounts as decimal text, formula guards removed), or a bank's export read through
/// ``ImportOptions/columns`` (`--map`), where other columns are ignored.
package enum CSVImporter {
    /// The columns of our export, in the order `export` writes them: `id`, `date`, `amount`, `currency` (what a
    /// reader looks at first), then every other field in ``ExpenseProtocol/ExpenseFields/all``'s order, each as
    /// its wire text (`category`, `note`, `paid_by`, `split`, `charged` in minor units of the ledger's currency, `tags`
    /// joined by commas, `parts` as typed, `household=12.30;pharmacy=9.90`) under
    /// its ``columnName(_:)``. `id` may be left out on
    /// import.
    package static let header = ["id", "date", "amount", "currency"]
        + ExpenseFields.all.map(\.field).filter { !leading.contains($0.rawValue) }.map(columnName)

    /// A field's CSV column: its name in snake case, as spreadsheets and other tools' exports write columns
    /// (`paid_by` for `paidBy`).
    package static func columnName(_ field: ExpenseField) -> String {
        String(field.rawValue.flatMap { $0.isUppercase ? ["_", Character($0.lowercased())] : [$0] })
    }

    /// The field whose CSV column is `name` (lower case).
    private static let fieldsByColumn = Dictionary(uniqueKeysWithValues: ExpenseField.allCases.map { (columnName($0), $0) })

    /// The fields whose columns lead the header, each read by a rule of its own (the amount as decimal text in
    /// its currency, the date in `--date-format`, an empty currency as the default).
    private static let leading = ["date", "amount", "currency"]

    /// The columns an import of our export must find: those of the first export format. A column of a field
    /// added since may be absent (a file written by an older version), and that field gets its default.
    private static let requiredColumns = ["date", "amount", "currency", "category", "note"]

    /// Parses and validates every row with the core's validator (all of them, so the error can count them);
    /// an empty currency means `defaultCurrency`.
    /// - Returns: the validated expenses, ids included (see ``ImportRow``).
    /// - Throws: ``ImportError`` naming the bad rows (the first 50), so nothing half-imports.
    package static func expenses(from text: String, defaultCurrency: Currency) throws(ImportError) -> [Expense] {
        try rows(from: text, options: ImportOptions(), defaultCurrency: defaultCurrency).map(\.expense)
    }

    /// ``expenses(from:defaultCurrency:)`` with the options of a bank export, returning rows with their lines.
    package static func rows(from text: String, options: ImportOptions, defaultCurrency: Currency) throws(ImportError) -> [ImportRow] {
        let records: [CSVRecord]
        do { records = try CSV.parse(text, delimiter: options.delimiter) } catch { throw .malformed(error) }
        let columns = try columnIndexes(records.first, options: options)
        let currency = options.currency ?? defaultCurrency
        var builder = ImportRowBuilder()
        var problems: [ImportError.RowProblem] = []
        var total = 0
        let width = records.first?.fields.count ?? 0
        for record in records.dropFirst() {
            func problem(_ code: String, _ message: String) {
                total += 1
                if problems.count < ImportError.shownProblems {
                    problems.append(.init(line: record.line, code: code, message: message))
                }
            }
            guard options.columns != nil ? record.fields.count >= width : record.fields.count == width else {
                problem("invalid_row", "expected \(width) fields, found \(record.fields.count)")
                continue
            }
            func field(_ name: ExpenseField) -> String? {
                columns[name].map { options.columns == nil ? CSV.unguardFormula(record.fields[$0]) : record.fields[$0] }
            }
            do {
                let currencyText = field(.currency).map { $0.trimmingSpacesAndTabs } ?? ""
                let rowCurrency = currencyText.isEmpty ? currency : try ExpenseValidator.validateCurrency(currencyText)
                let amountText = field(.amount) ?? ""
                let amount = options.bankAmounts
                    ? try ImportAmount.parse(amountText, currency: rowCurrency, decimalComma: options.decimalComma)
                    : try Money.parse(amountText, currency: rowCurrency)
                var date = field(.date) ?? ""
                if let format = options.dateFormat {
                    guard let iso = format.isoText(date) else {
                        throw ValidationError.invalidDate(date + " (expected \(format.text))")
                    }
                    date = iso
                }
                var fields = ExpenseDraft(id: nil, amount: amount, currency: .value(rowCurrency), category: nil, date: .text(date))
                // Every other field's column as its wire text (``ExpenseFields``); the category's is always there
                // (our header and `--map` both require it).
                for wire in ExpenseFields.all where !Self.leading.contains(wire.name) {
                    guard let cell = field(wire.field) else { continue }
                    let text = try Self.namingMembers(cell, of: wire.field, members: options.members, currency: rowCurrency)
                    // An integer field's cell (the amount charged, in minor units) is its JSON number; an empty
                    // cell of an optional one is the field left out (none).
                    let trimmed = text.trimmingSpacesAndTabs
                    if (wire.integer || wire.list) && wire.optional && trimmed.isEmpty { continue }
                    // A list's cell (the tags) is its elements joined by commas, as `export` writes them.
                    let value: JSONValue = wire.list ? .array(ExpenseTags.parse(text).map(JSONValue.string))
                        : wire.integer && Int64(trimmed) != nil ? .number(JSONNumber(text: trimmed)) : .string(text)
                    if let rejection = wire.read(value, &fields) {
                        throw ImportError.RowProblem(line: record.line, code: rejection.reason, message: rejection.message)
                    }
                }
                // A bank's row: the text its note starts as is the original text, kept as the bank gave it so
                // that rules read it whatever the note becomes (our export carries its own `source` column).
                if options.columns != nil, fields.source == nil { fields.source = fields.note }
                try builder.add(line: record.line, id: field(.id)?.trimmingSpacesAndTabs, fields: fields, currency: rowCurrency)
            } catch let error as ValidationError {
                problem(error.code, error.message)
            } catch let error as ImportError.RowProblem {
                problem(error.code, error.message)
            } catch {
                problem("invalid_row", "\(error)")
            }
        }
        guard problems.isEmpty else { throw .invalidRows(problems, total: total) }
        return builder.rows
    }

    /// A `parts` cell as its wire text (``ExpenseCore/ExpenseParts/init(typedList:currency:)``). A `paid_by` or
    /// `split` cell as its wire text: `export` names members (`alice`,
    /// `shares:alice=2,bob=1`, ``ExpenseCore/SplitSpec/typedText(currency:name:)``), read back by name among
    /// `members` with the split forms `add --split` takes; an id, or a split's canonical text (what exports wrote
    /// before they named members), is read as it is. Any other cell is returned unchanged. Whether a member
    /// named may be used (one who left) is ``ImportRow/memberProblems(in:members:unit:)``'s to say.
    /// - Throws: a problem coded `unknown_member` for a name no member has, or the split's own code.
    private static func namingMembers(_ cell: String, of field: ExpenseField, members: [Member],
                                      currency: Currency) throws(ImportError.RowProblem) -> String {
        let trimmed = cell.trimmingSpacesAndTabs
        if field == .parts, !trimmed.isEmpty {
            // As `export` writes them, `household=12.30;pharmacy=9.90` in the row's currency.
            do {
                return try ExpenseParts(typedList: trimmed, currency: currency).text
            } catch let error as ValidationError {
                throw ImportError.RowProblem(line: 0, code: error.code, message: "\(columnName(field)): \(error.message)")
            } catch {
                throw ImportError.RowProblem(line: 0, code: "invalid_parts", message: "\(columnName(field)): \(error)")
            }
        }
        guard field == .paidBy || field == .split, !trimmed.isEmpty else { return cell }
        func member(_ name: String) throws(SplitError) -> UUID {
            if let member = Member.named(name, in: members) { return member.id }
            if let id = UUIDText.parse(name) { return id }
            throw .unknownMember(name)
        }
        do throws(SplitError) {
            if field == .paidBy { return UUIDText.lowercased(try member(trimmed)) }
            if (try? SplitSpec(text: trimmed)) != nil { return trimmed }
            return try SplitSpec.parse(trimmed, currency: currency, member: member,
                                       everyone: { members.filter(\.isActive).map(\.id) }).text
        } catch {
            throw ImportError.RowProblem(line: 0, code: error.code, message: "\(columnName(field)): \(error.message)")
        }
    }

    /// Where each field's column is. Our header: the names of ``header`` in any order, each at most once,
    /// all but `id` required, nothing else. With `--map`: each mapped header text (trimmed, any case) must be there.
    private static func columnIndexes(_ first: CSVRecord?, options: ImportOptions) throws(ImportError) -> [ExpenseField: Int] {
        let names = (first?.fields ?? []).map { $0.trimmingSpacesAndTabs.lowercased() }
        let found = first?.fields.joined(separator: String(Character(options.delimiter))) ?? ""
        var indexes: [ExpenseField: Int] = [:]
        if let mapped = options.columns {
            for (field, column) in mapped {
                guard let index = names.firstIndex(of: column.lowercased()) else {
                    throw .badHeader(found: found, expected: "a column '\(column)' for \(field.rawValue) (from --map)")
                }
                indexes[field] = index
            }
            return indexes
        }
        let expected = "the header '\(header.joined(separator: ","))' (id optional, any order; or give --map)"
        for (index, name) in names.enumerated() {
            guard let field = fieldsByColumn[name], header.contains(name), indexes[field] == nil else {
                throw .badHeader(found: found, expected: expected)
            }
            indexes[field] = index
        }
        guard requiredColumns.allSatisfy({ ExpenseField(rawValue: $0).flatMap { indexes[$0] } != nil }) else {
            throw .badHeader(found: found, expected: expected)
        }
        return indexes
    }
}
