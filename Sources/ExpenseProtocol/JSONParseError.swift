import ExpenseCore
/// Why a line is not acceptable JSON. Every case has a stable snake_case ``code``.
///
/// The parser is strict RFC 8259 with a few limits of its own (nesting depth, number length, duplicate keys),
/// so that no input, however hostile, costs more than a linear scan or crashes the process.
public enum JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The input is empty or only whitespace.
    case emptyInput
    /// The input ended inside a value.
    case unexpectedEnd
    /// A byte that cannot start or continue a value here (including a UTF-8 byte order mark).
    case unexpectedCharacter
    /// A string holds bytes that are not well-formed UTF-8 (overlong forms, encoded surrogates and
    /// code points above U+10FFFF included).
    case invalidUTF8
    /// A raw control character (U+0000 … U+001F) inside a string; they must be escaped.
    case controlCharacterInString
    /// A backslash escape that JSON does not define, or a `\u` not followed by four hex digits.
    case invalidEscape
    /// A `\u` escape of a UTF-16 surrogate that is not part of a valid high-low pair.
    case loneSurrogate
    /// A number that does not follow the JSON number grammar (`01`, `1.`, `.5`, `+1`, `1e`).
    case invalidNumber
    /// A number written with more than ``JSONParser/maximumNumberLength`` characters.
    case numberTooLong
    /// Arrays and objects nested deeper than ``JSONParser/maximumDepth``.
    case nestingTooDeep
    /// The same key twice in one object; the protocol never guesses which one was meant.
    case duplicateKey(String)
    /// Something other than whitespace after the value.
    case trailingCharacters

    /// The stable snake_case code, such as `invalid_utf8`.
    public var code: String {
        switch self {
        case .emptyInput: "empty_input"
        case .unexpectedEnd: "unexpected_end"
        case .unexpectedCharacter: "unexpected_character"
        case .invalidUTF8: "invalid_utf8"
        case .controlCharacterInString: "control_character_in_string"
        case .invalidEscape: "invalid_escape"
        case .loneSurrogate: "lone_surrogate"
        case .invalidNumber: "invalid_number"
        case .numberTooLong: "number_too_long"
        case .nestingTooDeep: "nesting_too_deep"
        case .duplicateKey: "duplicate_key"
        case .trailingCharacters: "trailing_characters"
        }
    }

    public var description: String {
        switch self {
        case .duplicateKey(let key):
            return "duplicate_key: the key \(DisplayText.quoted(key, quote: "\"")) appears twice in one object"
        default:
            return code
        }
    }
}
