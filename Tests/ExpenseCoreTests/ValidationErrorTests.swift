import ExpenseCore
import Testing

@Suite("ValidationError codes and fields")
struct ValidationErrorTests {
    /// The codes are a public contract (protocol `data.reason`, CLI output, scripts): they never change.
    @Test("every case has its stable snake_case code and field", arguments: [
        (ValidationError.invalidAmount("x"), "invalid_amount", ExpenseField.amount),
        (.amountOverflow, "amount_overflow", .amount),
        (.emptyCategory, "empty_category", .category),
        (.categoryTooLong(.characters), "category_too_long", .category),
        (.categoryTooLong(.bytes), "category_too_long", .category),
        (.noteTooLong(.characters), "note_too_long", .note),
        (.noteTooLong(.bytes), "note_too_long", .note),
        (.invalidText(.category), "invalid_text", .category),
        (.invalidText(.note), "invalid_text", .note),
        (.invalidDate("2026-02-29"), "invalid_date", .date),
        (.invalidCurrency("usd"), "invalid_currency", .currency),
        (.invalidId("nope"), "invalid_id", .id),
        (.missingField(.id), "missing_field", .id),
        (.missingField(.note), "missing_field", .note),
        (.invalidCharged("x"), "invalid_charged", .charged),
        (.invalidTags("x"), "invalid_tags", .tags),
        (.invalidParts("x"), "invalid_parts", .parts),
        (.invalidText(.source), "invalid_text", .source),
        (.sourceTooLong(.characters), "source_too_long", .source),
        (.sourceTooLong(.bytes), "source_too_long", .source),
    ])
    func codeAndField(error: ValidationError, code: String, field: ExpenseField) {
        #expect(error.code == code)
        #expect(error.field == field)
        #expect(error.description.hasPrefix(code + ": "))
        #expect(!error.message.isEmpty)
    }

    @Test("the ten codes are distinct")
    func distinct() {
        let codes: [ValidationError] = [
            .invalidAmount(""), .amountOverflow, .emptyCategory, .categoryTooLong(.bytes), .noteTooLong(.bytes),
            .invalidText(.note), .invalidDate(""), .invalidCurrency(""), .invalidId(""), .missingField(.id),
        ]
        #expect(Set(codes.map(\.code)).count == 10)
    }

    @Test("messages never echo control characters and cut long input")
    func messageQuoting() {
        let message = ValidationError.invalidDate("\u{1B}[31m2026\u{7}").message
        #expect(!message.unicodeScalars.contains { $0.properties.generalCategory == .control })
        let long = ValidationError.invalidId(String(repeating: "a", count: 1_000)).message
        #expect(long.count < 200)
        // The amount charged's detail is the program's own sentence, shown whole, its control characters escaped.
        #expect(!ValidationError.invalidCharged("a\u{7}b").message.unicodeScalars.contains { $0.properties.generalCategory == .control })
    }

    @Test("field names are the wire names")
    func fieldNames() {
        #expect(ExpenseField.allCases.map(\.rawValue) == ["id", "amount", "currency", "category", "date", "note", "paidBy", "split", "charged", "tags", "parts", "source"])
    }
}
