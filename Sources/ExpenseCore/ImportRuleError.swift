/// Why rules could not be run on an expense, or a rule cannot be made yet.
public enum ImportRuleError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An action this program keeps and syncs but cannot apply yet (adding a tag, a part): refused when the rule
    /// is made, so that no rule silently does nothing.
    case notYetAvailable(action: String)
    /// What a rule's actions made of an expense breaks the expense's own rule (a split with no payer, a member
    /// gone); `rule` is its label.
    case invalidResult(rule: String, ValidationError)

    /// The stable snake_case code: `not_yet_available`, or the expense rule's own.
    public var code: String {
        switch self {
        case .notYetAvailable: "not_yet_available"
        case .invalidResult(_, let error): error.code
        }
    }

    public var message: String {
        switch self {
        case .notYetAvailable(let action):
            "the action \(action) is not available yet: expenses have no parts in this version"
        case .invalidResult(let rule, let error): "rule \(rule) made an invalid expense: \(error.message)"
        }
    }

    public var description: String { "\(code): \(message)" }
}
