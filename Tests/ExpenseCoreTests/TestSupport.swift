import ExpenseCore
import Testing
import TestSupport
import Foundation

/// Currencies the tests use, looked up once (a missing one stops the test run with a precondition failure).
enum TestCurrency {
    static func named(_ code: String) -> Currency {
        guard let currency = Currency(code: code) else {
            preconditionFailure("test currency \(code) missing from the table")
        }
        return currency
    }
    static let usd = named("USD")
    static let eur = named("EUR")
    static let jpy = named("JPY")
    static let bhd = named("BHD")
    static let uyw = named("UYW")
}

/// A valid draft, with any field overridable, for tests that vary one field at a time.
func makeDraft(
    id: String? = "6ba7b810-9dad-11d1-80b4-00c04fd430c8", amount: Int64? = 1250, currency: String? = "USD",
    category: String? = "food", date: String? = "2026-01-05", note: String? = ""
) -> ExpenseDraft {
    ExpenseDraft(id: id, amount: amount, currency: currency, category: category, date: date, note: note)
}

/// Validates a draft built from the arguments; test helper for aggregations.
func makeExpense(
    _ amount: Int64, _ currency: String = "USD", category: String = "food", date: String = "2026-01-05",
    id: String? = nil
) throws -> Expense {
    try ExpenseValidator.validate(makeDraft(
        id: id ?? UUID().uuidString, amount: amount, currency: currency, category: category, date: date))
}

/// Expects `body` to throw a ``ValidationError`` with this snake_case code (and field, when given).
func expectValidationError<T>(
    _ code: String, field: ExpenseField? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> T
) {
    let error = #expect(throws: ValidationError.self, sourceLocation: sourceLocation) { _ = try body() }
    guard let error else { return }
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    if let field { #expect(error.field == field, "\(error)", sourceLocation: sourceLocation) }
}
