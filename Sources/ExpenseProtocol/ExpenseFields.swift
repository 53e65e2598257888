import ExpenseCore

/// The `fields` object of a `put`, both ways: wire JSON to a partial ``ExpenseCore/ExpenseDraft`` (daemon)
/// and a draft to wire JSON (client).
///
/// Only the JSON *types* are checked here, so that a wrong type gets that field's own reason. Everything else
/// (currency codes, dates, lengths, control characters, required fields) is the core's
/// ``ExpenseCore/ExpenseValidator``, run by the ledger after merging the sent fields with the stored ones.
public enum ExpenseFields {
    /// The member names a `fields` object may hold.
    public static let names: [String] = ["amount", "currency", "category", "date", "note"]

    /// The partial draft holding exactly the fields sent (its `id` is nil: the mutation carries the id).
    ///
    /// Checks, first failure wins: an unknown key (the first in byte order) is `unknown_field` naming it; then,
    /// in the order amount, currency, category, date, note: `amount` must be a JSON integer (no fraction, no
    /// exponent, so `1250.0` and `1e3` are refused) in 1 … 9007199254740991, else `invalid_amount`; `currency`
    /// not a string is `invalid_currency`; `date` not a string is `invalid_date`; `category` or `note` not a
    /// string is `invalid_text`. `null` is a wrong type like any other (omit a field to leave it unchanged).
    public static func draft(from fields: [String: JSONValue]) -> Result<ExpenseDraft, MutationRejection> {
        draft(from: MutationFields(fields))
    }

    /// ``draft(from:)-([String:JSONValue])`` of the members read one by one: the same checks in the same order
    /// (an unknown member is one of ``MutationFields/others``).
    public static func draft(from fields: MutationFields) -> Result<ExpenseDraft, MutationRejection> {
        if let first = fields.others.keys.min(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            return .failure(MutationRejection(reason: "unknown_field", field: first,
                                              message: "unknown field \(Self.quoted(first)); fields are \(names.joined(separator: ", "))"))
        }
        var draft = ExpenseDraft()
        if let value = fields.amount {
            switch amount(from: value) {
            case .success(let minorUnits): draft.amount = minorUnits
            case .failure(let rejection): return .failure(rejection)
            }
        }
        if let value = fields.currency {
            guard let text = value.stringValue else { return .failure(MutationRejection(.invalidCurrency(value.jsonText))) }
            draft.currency = .text(text)
        }
        if let value = fields.category {
            guard let text = value.stringValue else { return .failure(wrongType(.category, "a string")) }
            draft.category = text
        }
        if let value = fields.date {
            guard let text = value.stringValue else { return .failure(MutationRejection(.invalidDate(value.jsonText))) }
            draft.date = .text(text)
        }
        if let value = fields.note {
            guard let text = value.stringValue else { return .failure(wrongType(.note, "a string")) }
            draft.note = text
        }
        return .success(draft)
    }

    /// The wire `fields` of a draft: only its non-nil fields (never `id`).
    public static func json(from draft: ExpenseDraft) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        if let amount = draft.amount { fields["amount"] = .number(JSONNumber(amount)) }
        if let currency = draft.currency { fields["currency"] = .string(currency.text) }
        if let category = draft.category { fields["category"] = .string(category) }
        if let date = draft.date { fields["date"] = .string(date.text) }
        if let note = draft.note { fields["note"] = .string(note) }
        return fields
    }

    /// An amount: a JSON integer whose range the core checks (``ExpenseCore/Money/checkRange(_:)``).
    static func amount(from value: JSONValue) -> Result<Int64, MutationRejection> {
        guard case .number(let number) = value else {
            return .failure(MutationRejection(.invalidAmount(
                "the amount must be a JSON integer of minor units such as 1250, not \(Self.describe(value))")))
        }
        guard let minorUnits = number.int64 else {
            let isInteger = number.text.utf8.allSatisfy { $0 == UInt8(ascii: "-") || ($0 >= 48 && $0 <= 57) }
            return .failure(MutationRejection(.invalidAmount(isInteger
                ? "\(DisplayText.escaped(number.text)) is out of range: amounts are 1 to \(ExpenseRules.maximumAmount) minor units"
                : "\(DisplayText.escaped(number.text)) is not a JSON integer; send whole minor units such as 1250 (no fraction, no exponent)")))
        }
        do {
            try Money.checkRange(minorUnits)
        } catch let error as ValidationError {
            return .failure(MutationRejection(error))
        } catch {
            return .failure(MutationRejection(.invalidAmount("\(minorUnits) is out of range")))
        }
        return .success(minorUnits)
    }

    private static func wrongType(_ field: ExpenseField, _ expected: String) -> MutationRejection {
        MutationRejection(reason: "invalid_text", field: field.rawValue, message: "the \(field.rawValue) must be \(expected)")
    }

    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    private static func quoted(_ text: String) -> String { DisplayText.quoted(text, quote: "\"") }
}
