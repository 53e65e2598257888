/// Why an expense (or an amount, a date or a sum) was refused.
///
/// Every case has a stable snake_case ``code`` that the protocol (`data.reason`) and the CLI show and that
/// scripts match on: once shipped, a code never changes.
public enum ValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The amount is not a whole, positive number of minor units from 1 to 9007199254740991 (2^53−1),
    /// or its text is not a plain decimal with at most the currency's number of decimal places.
    case invalidAmount(String)
    /// A sum of amounts in one currency does not fit in a 64-bit integer.
    case amountOverflow
    /// The category is empty once whitespace and newlines are trimmed.
    case emptyCategory
    /// The category is longer than 64 characters (grapheme clusters) or 256 bytes of UTF-8 after trimming; the
    /// limit says which.
    case categoryTooLong(TextLimit)
    /// The note is longer than 300 characters (grapheme clusters) or 1,200 bytes of UTF-8; the limit says which.
    case noteTooLong(TextLimit)
    /// A control character in the given field (tab and newline are allowed in notes and original texts only).
    case invalidText(ExpenseField)
    /// The date is not a real Gregorian day written `YYYY-MM-DD` between 1900-01-01 and 9999-12-31.
    case invalidDate(String)
    /// The currency is not an active ISO 4217 code written in upper case.
    case invalidCurrency(String)
    /// The id is not a UUID.
    case invalidId(String)
    /// A required field was not given (a split without a payer misses `paidBy`).
    case missingField(ExpenseField)
    /// The payer is not a member id (lower-case UUID text) or empty.
    case invalidPaidBy(String)
    /// The split was refused; its own code says why (``SplitError/code``: `invalid_split`, `unknown_member`, …).
    case invalidSplit(SplitError)
    /// The amount charged (`--paid`) is not 0 (none) nor 1 … 9007199254740991 minor units of the ledger's currency,
    /// or is given for an expense already in the ledger's currency.
    case invalidCharged(String)
    /// A tag is empty, longer than 32 characters, or holds whitespace, a comma or a control character, or an
    /// expense has more than 16 tags.
    case invalidTags(String)
    /// The parts (one payment in several categories, ``ExpenseParts``) are malformed, name a category twice or
    /// the expense's own, or do not leave the expense's own category at least one minor unit; the detail says by
    /// how much.
    case invalidParts(String)
    /// The original text an import read (``Expense/source``) is longer than a note may be: 300 characters
    /// (grapheme clusters) or 1,200 bytes of UTF-8; the limit says which.
    case sourceTooLong(TextLimit)

    /// The stable snake_case code, such as `invalid_amount`.
    public var code: String {
        switch self {
        case .invalidAmount: "invalid_amount"
        case .amountOverflow: "amount_overflow"
        case .emptyCategory: "empty_category"
        case .categoryTooLong: "category_too_long"
        case .noteTooLong: "note_too_long"
        case .invalidText: "invalid_text"
        case .invalidDate: "invalid_date"
        case .invalidCurrency: "invalid_currency"
        case .invalidId: "invalid_id"
        case .missingField: "missing_field"
        case .invalidPaidBy: "invalid_paid_by"
        case .invalidSplit(let error): error.code
        case .invalidCharged: "invalid_charged"
        case .invalidTags: "invalid_tags"
        case .invalidParts: "invalid_parts"
        case .sourceTooLong: "source_too_long"
        }
    }

    /// The field the error is about.
    public var field: ExpenseField {
        switch self {
        case .invalidAmount, .amountOverflow: .amount
        case .emptyCategory, .categoryTooLong: .category
        case .noteTooLong: .note
        case .invalidText(let field), .missingField(let field): field
        case .invalidDate: .date
        case .invalidCurrency: .currency
        case .invalidId: .id
        case .invalidPaidBy: .paidBy
        case .invalidSplit: .split
        case .invalidCharged: .charged
        case .invalidTags: .tags
        case .invalidParts: .parts
        case .sourceTooLong: .source
        }
    }

    /// A sentence for a person: what was wrong and what is allowed.
    public var message: String {
        switch self {
        case .invalidAmount(let detail): "invalid amount: \(Self.withoutControls(detail))"
        case .amountOverflow: "the total in this currency would not fit in a 64-bit integer of minor units"
        case .emptyCategory: "the category is empty; give 1 to \(ExpenseRules.maximumCategoryLength) characters"
        case .categoryTooLong(.characters): "the category is longer than \(ExpenseRules.maximumCategoryLength) characters"
        case .categoryTooLong(.bytes):
            "the category is longer than \(ExpenseRules.maximumCategoryBytes) bytes of UTF-8 (at most "
                + "\(ExpenseRules.maximumCategoryLength) characters and \(ExpenseRules.maximumCategoryBytes) bytes)"
        case .noteTooLong(.characters): "the note is longer than \(ExpenseRules.maximumNoteLength) characters"
        case .noteTooLong(.bytes):
            "the note is longer than \(Self.grouped(ExpenseRules.maximumNoteBytes)) bytes of UTF-8 (at most "
                + "\(ExpenseRules.maximumNoteLength) characters and \(Self.grouped(ExpenseRules.maximumNoteBytes)) bytes)"
        case .invalidText(let field):
            field == .note || field == .source
                ? "the \(field == .note ? "note" : "original text") contains a control character (only tab and newline are allowed)"
                : "the \(field.rawValue) contains a control character"
        case .invalidDate(let text): "invalid date \(Self.quoted(text)): expected a real day YYYY-MM-DD from 1900-01-01 to 9999-12-31"
        case .invalidCurrency(let text): "invalid currency \(Self.quoted(text)): expected an active ISO 4217 code in upper case, such as USD"
        case .invalidId(let text): "invalid id \(Self.quoted(text)): expected a UUID"
        case .missingField(.paidBy): "a shared expense (one with a split) needs a payer: name the member who paid"
        case .missingField(let field): "the \(field.rawValue) is missing"
        case .invalidPaidBy(let text): "invalid payer \(Self.quoted(text)): expected a member's id"
        case .invalidSplit(let error): error.message
        // Whole, not cut at 64 characters: every detail is this program's own sentence, any input in it cut already.
        case .invalidCharged(let detail): "invalid amount charged: \(DisplayText.escapedWhole(detail))"
        // Whole: the detail is this program's sentence, any tag in it quoted (and so escaped) already.
        case .invalidTags(let detail): "invalid tags: \(DisplayText.escapedWhole(detail))"
        // Whole: the detail is this program's sentence, any category in it quoted and escaped already.
        case .invalidParts(let detail): "invalid parts: \(DisplayText.escapedWhole(detail))"
        case .sourceTooLong(.characters): "the original text is longer than \(ExpenseRules.maximumNoteLength) characters"
        case .sourceTooLong(.bytes):
            "the original text is longer than \(Self.grouped(ExpenseRules.maximumNoteBytes)) bytes of UTF-8 (at most "
                + "\(ExpenseRules.maximumNoteLength) characters and \(Self.grouped(ExpenseRules.maximumNoteBytes)) bytes)"
        }
    }

    public var description: String { "\(code): \(message)" }

    /// `text` in single quotes, safe to print (``DisplayText/quoted(_:quote:)``).
    static func quoted(_ text: String) -> String { DisplayText.quoted(text) }

    /// `value` in decimal with a comma every three digits (`1,200`), the same in every locale.
    static func grouped(_ value: Int) -> String {
        var digits = Array(String(value))
        var index = digits.count - 3
        while index > 0 {
            digits.insert(",", at: index)
            index -= 3
        }
        return String(digits)
    }

    /// `text` with every control character escaped (``DisplayText/escaped(_:)``).
    static func withoutControls(_ text: String) -> String { DisplayText.escaped(text) }
}
