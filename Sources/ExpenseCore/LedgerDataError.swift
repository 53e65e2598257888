/// Why a budget, a recurring rule or a ledger setting was refused (Protocol.md §10, record kinds).
///
/// Every case has a stable snake_case ``code``, shown by the protocol (`reason`) and the CLI; once shipped, a
/// code never changes. An error about an amount, a currency, a category, a date or a note is the expense's
/// own ``ValidationError`` (same code), so the two kinds of record never disagree on those rules.
public enum LedgerDataError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A value shared with expenses was refused by the same rule; `field` is the record's field name.
    case value(ValidationError, field: String)
    /// A key that is not a field of this kind of record.
    case unknownField(String)
    /// A required field was not given.
    case missingField(String)
    /// A field has the wrong type or a value outside its allowed set; `detail` says what is allowed.
    case invalidValue(field: String, detail: String)
    /// A budget's id is not the one derived from its category or tag and its currency (``Budget/id(target:currency:)``).
    case budgetIdMismatch
    /// An exchange rate's id is not the one derived from its date and currencies (``ExchangeRate/id(date:from:to:)``).
    case rateIdMismatch
    /// The record kind is not one this program knows.
    case unknownKind(String)
    /// A rule's regular expression does not compile; the error names the position.
    case invalidRegex(PatternError)
    /// Another member of the ledger already has this name (compared by its bytes once trimmed).
    case memberExists(String)

    /// The stable snake_case code.
    public var code: String {
        switch self {
        case .value(let error, _): error.code
        case .unknownField: "unknown_field"
        case .missingField: "missing_field"
        case .invalidValue: "invalid_value"
        case .budgetIdMismatch, .rateIdMismatch: "invalid_id"
        case .unknownKind: "unknown_kind"
        case .memberExists: "member_exists"
        case .invalidRegex(let error): error.code
        }
    }

    /// The field the error is about (`kind` for an unknown kind).
    public var field: String {
        switch self {
        case .value(_, let field), .missingField(let field), .unknownField(let field), .invalidValue(let field, _): field
        case .budgetIdMismatch, .rateIdMismatch: "id"
        case .unknownKind: "kind"
        case .memberExists: "name"
        case .invalidRegex: "conditions"
        }
    }

    /// A sentence for a person.
    public var message: String {
        switch self {
        case .value(let error, _): error.message
        case .unknownField(let name): "unknown field \(DisplayText.quoted(name))"
        case .missingField(let name): "the \(name) is missing"
        case .invalidValue(let field, let detail): "invalid \(field): \(DisplayText.escaped(detail))"
        case .budgetIdMismatch: "a budget's id must be the one derived from its category and currency"
        case .rateIdMismatch: "an exchange rate's id must be the one derived from its date and currencies"
        case .unknownKind(let kind): "unknown record kind \(DisplayText.quoted(kind))"
        case .memberExists(let name):
            "the ledger already has a member named \(DisplayText.quoted(name)); choose another name or rename that member"
        case .invalidRegex(let error): error.message
        }
    }

    public var description: String { "\(code): \(message)" }
}
