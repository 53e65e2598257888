/// Why rules could not be run on an expense.
public enum ImportRuleError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What a rule's actions made of an expense breaks the expense's own rule (a split with no payer, a member
    /// gone); `rule` is its label.
    case invalidResult(rule: String, ValidationError)

    /// The stable snake_case code: the expense rule's own.
    public var code: String {
        switch self {
        case .invalidResult(_, let error): error.code
        }
    }

    public var message: String {
        switch self {
        case .invalidResult(let rule, let error): "rule \(rule) made an invalid expense: \(error.message)"
        }
    }

    public var description: String { "\(code): \(message)" }
}
