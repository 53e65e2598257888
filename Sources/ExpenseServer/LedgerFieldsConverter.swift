import ExpenseCore
import ExpenseProtocol

// TEMPORARY: replaced by the wire branch's `ExpenseFields.draft(from:)` once it is merged (one converter only).
/// Turns a put's `fields` object into a partial draft, refusing unknown keys and wrong JSON types.
package enum LedgerFieldsConverter {
    package static func draft(from fields: [String: JSONValue]) -> Result<ExpenseDraft, MutationRejection> {
        var draft = ExpenseDraft()
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            switch (key, value) {
            case ("amount", .number(let number)):
                guard let amount = number.int64 else { return .failure(reject("invalid_amount", key, "amount must be an integer")) }
                draft.amount = amount
            case ("amount", _): return .failure(reject("invalid_amount", key, "amount must be a JSON integer"))
            case ("currency", .string(let text)): draft.currency = text
            case ("currency", _): return .failure(reject("invalid_currency", key, "currency must be a string"))
            case ("category", .string(let text)): draft.category = text
            case ("category", _): return .failure(reject("invalid_text", key, "category must be a string"))
            case ("date", .string(let text)): draft.date = text
            case ("date", _): return .failure(reject("invalid_date", key, "date must be a string"))
            case ("note", .string(let text)): draft.note = text
            case ("note", _): return .failure(reject("invalid_text", key, "note must be a string"))
            default: return .failure(reject("unknown_field", key, "unknown field '\(key)'"))
            }
        }
        return .success(draft)
    }

    private static func reject(_ reason: String, _ field: String, _ message: String) -> MutationRejection {
        MutationRejection(reason: reason, field: field, message: message)
    }
}
