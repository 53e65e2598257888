import Foundation
import ExpenseCore

/// Why an import file was refused. Nothing is imported from a refused file.
package enum ImportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file is not valid CSV.
    case malformed(CSVError)
    /// The first line is not `date,amount,currency,category,note`.
    case badHeader(found: String)
    /// One or more rows are invalid; each names its physical line.
    case invalidRows([RowProblem])

    /// One bad row.
    package struct RowProblem: Hashable, Sendable, CustomStringConvertible {
        package var line: Int
        /// A validation code (`invalid_amount`, …) or `invalid_row` for a wrong number of fields.
        package var code: String
        package var message: String

        package var description: String { "line \(line): \(code): \(message)" }
    }

    package var description: String {
        switch self {
        case .malformed(let error): "invalid_csv: \(error)"
        case .badHeader(let found):
            "invalid_header: line 1: expected the header '\(CSVImporter.header.joined(separator: ","))', found '\(found)'"
        case .invalidRows(let problems):
            problems.map(\.description).joined(separator: "\n")
        }
    }
}

/// Turns a CSV export (`date,amount,currency,category,note`, amounts as decimal text) into validated drafts.
package enum CSVImporter {
    /// The required header, in order.
    package static let header = ["date", "amount", "currency", "category", "note"]

    /// Parses and validates every row with the core's validator; an empty currency means `defaultCurrency`.
    /// - Returns: the validated drafts, each with a new id, ready for ``LocalLedger/add(_:)-(Array)``.
    /// - Throws: ``ImportError`` naming every bad row (up to 50), so nothing half-imports.
    package static func drafts(from text: String, defaultCurrency: Currency) throws(ImportError) -> [Expense] {
        let records: [CSVRecord]
        do { records = try CSV.parse(text) } catch { throw .malformed(error) }
        guard let first = records.first,
              first.fields.map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) == header
        else { throw .badHeader(found: records.first?.fields.joined(separator: ",") ?? "") }

        var expenses: [Expense] = []
        var problems: [ImportError.RowProblem] = []
        for record in records.dropFirst() {
            guard record.fields.count == header.count else {
                problems.append(.init(line: record.line, code: "invalid_row",
                                      message: "expected \(header.count) fields, found \(record.fields.count)"))
                continue
            }
            let fields = record.fields
            do {
                let currencyText = fields[2].isEmpty ? defaultCurrency.code : fields[2]
                let currency = try ExpenseValidator.validateCurrency(currencyText)
                let amount = try Money.parse(fields[1], currency: currency)
                expenses.append(try ExpenseValidator.validate(ExpenseDraft(
                    id: UUID().uuidString.lowercased(), amount: amount, currency: currency.code,
                    category: fields[3], date: fields[0], note: fields[4])))
            } catch let error as ValidationError {
                problems.append(.init(line: record.line, code: error.code, message: error.message))
            } catch {
                problems.append(.init(line: record.line, code: "invalid_row", message: "\(error)"))
            }
            if problems.count >= 50 { break }
        }
        guard problems.isEmpty else { throw .invalidRows(problems) }
        return expenses
    }
}
