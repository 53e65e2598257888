/// Why a rule's regular expression (``Pattern``) was refused when the rule was made.
///
/// Every case carries the position it is about: the 1-based index of the Unicode scalar in the pattern where
/// the problem is seen, so a person can count to it. ``code`` is the one stable code of all of them,
/// `invalid_regex`; the message says which problem it is.
public enum PatternError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The pattern is longer than ``Pattern/maximumLength`` scalars.
    case tooLong(length: Int)
    /// A `(` with no `)`; the position is the `(`.
    case unclosedGroup(position: Int)
    /// A `)` with no `(`.
    case unmatchedParenthesis(position: Int)
    /// A `[` with no `]`; the position is the `[`.
    case unclosedClass(position: Int)
    /// A class with nothing in it, such as `[]`.
    case emptyClass(position: Int)
    /// A range whose end comes before its start, such as `[z-a]`.
    case invalidRange(position: Int)
    /// `*`, `+`, `?` or `{…}` with nothing before it to repeat (or repeating a repetition, such as `a**`).
    case nothingToRepeat(position: Int)
    /// A `{m,n}` that is malformed, above ``Pattern/maximumRepetition``, or with n < m.
    case invalidRepetition(position: Int)
    /// A `\` followed by a letter or digit this engine does not know, or by nothing.
    case invalidEscape(position: Int)
    /// A `(?` group other than `(?:…)` and a leading `(?-i)`.
    case unsupportedGroup(position: Int)
    /// The compiled program would have more than ``Pattern/maximumStates`` states (`a{1000}{1000}`).
    case tooLarge(states: Int)

    /// The stable snake_case code, the same for every case.
    public var code: String { "invalid_regex" }

    /// The position (1-based scalar index) the message names; 0 for a pattern too long or too large.
    public var position: Int {
        switch self {
        case .tooLong, .tooLarge: 0
        case .unclosedGroup(let position), .unmatchedParenthesis(let position), .unclosedClass(let position),
             .emptyClass(let position), .invalidRange(let position), .nothingToRepeat(let position),
             .invalidRepetition(let position), .invalidEscape(let position), .unsupportedGroup(let position):
            position
        }
    }

    /// A sentence for a person, beginning `regex:`.
    public var message: String {
        switch self {
        case .tooLong(let length): "regex: the pattern is \(length) characters long; at most \(Pattern.maximumLength)"
        case .unclosedGroup(let position): "regex: unclosed group at position \(position)"
        case .unmatchedParenthesis(let position): "regex: unmatched ')' at position \(position)"
        case .unclosedClass(let position): "regex: unclosed character class at position \(position)"
        case .emptyClass(let position): "regex: empty character class at position \(position)"
        case .invalidRange(let position): "regex: range out of order at position \(position)"
        case .nothingToRepeat(let position): "regex: nothing to repeat at position \(position)"
        case .invalidRepetition(let position):
            "regex: invalid repetition at position \(position) (write {m}, {m,} or {m,n} with m <= n <= \(Pattern.maximumRepetition))"
        case .invalidEscape(let position): "regex: unknown escape at position \(position)"
        case .unsupportedGroup(let position): "regex: unsupported group at position \(position) (only (?:...) and a leading (?-i))"
        case .tooLarge(let states): "regex: the pattern compiles to \(states) states or more; at most \(Pattern.maximumStates)"
        }
    }

    public var description: String { "\(code): \(message)" }
}
