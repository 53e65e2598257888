import ExpenseCore
import ExpenseProtocol

/// Turns our JSON export (an array of `{id, date, amount, currency, category, note}`, `amount` an integer in
/// minor units) into validated rows. `id`, `currency` and `note` may be left out (a derived id, the default
/// currency, an empty note); other keys are ignored. A problem names the item's position in the array (from 1).
package enum JSONImporter {
    /// - Throws: ``ImportError`` naming the bad items (the first 50), so nothing half-imports.
    package static func rows(from text: String, defaultCurrency: Currency) throws(ImportError) -> [ImportRow] {
        let value: JSONValue
        do { value = try JSONParser.parse(Array(text.utf8)) } catch { throw .malformedJSON("\(error)") }
        guard let items = value.arrayValue else { throw .malformedJSON("the file must hold one JSON array of expenses") }
        var builder = ImportRowBuilder()
        var problems: [ImportError.RowProblem] = []
        var total = 0
        for (offset, item) in items.enumerated() {
            let position = offset + 1
            do {
                guard let object = item.objectValue else { throw problem(position, "an item must be an object") }
                func text(_ key: String, required: Bool) throws -> String? {
                    switch object[key] {
                    case nil, .null?:
                        if required { throw ValidationError.missingField(ExpenseField(rawValue: key) ?? .id) }
                        return nil
                    case .string(let value)?: return value
                    default: throw problem(position, "\(key) must be a string")
                    }
                }
                let currencyText = try text("currency", required: false) ?? ""
                let currency = currencyText.isEmpty ? defaultCurrency : try ExpenseValidator.validateCurrency(currencyText)
                guard let amountValue = object["amount"] else { throw ValidationError.missingField(.amount) }
                guard case .number(let number) = amountValue, let amount = number.int64 else {
                    throw problem(position, "amount must be an integer of minor units, such as 1250 for 12.50 USD")
                }
                var fields = ExpenseDraft(id: nil, amount: amount, currency: .value(currency), category: nil, date: nil)
                // Every other field as the wire reads it (``ExpenseFields``); one left out is missing, or its default.
                for field in ExpenseFields.all where field.field != .amount && field.field != .currency {
                    guard let value = object[field.name], value != .null else { continue }
                    if let rejection = field.read(value, &fields) { throw problem(position, rejection.message) }
                }
                try builder.add(line: position, id: try text("id", required: false), fields: fields, currency: currency)
            } catch let error as ValidationError {
                total += 1
                if problems.count < ImportError.shownProblems {
                    problems.append(.init(line: position, code: error.code, message: error.message, unit: "item"))
                }
            } catch let error as ImportError.RowProblem {
                total += 1
                if problems.count < ImportError.shownProblems {
                    problems.append(.init(line: position, code: error.code, message: error.message, unit: "item"))
                }
            } catch {
                total += 1
            }
        }
        guard problems.isEmpty else { throw .invalidRows(problems, total: total) }
        return builder.rows
    }

    private static func problem(_ position: Int, _ message: String) -> ImportError.RowProblem {
        ImportError.RowProblem(line: position, code: "invalid_row", message: message, unit: "item")
    }
}
