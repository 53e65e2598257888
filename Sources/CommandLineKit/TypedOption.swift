/// An option declared once, with its type: the spec (name, placeholder, help, completion) and how its text
/// becomes a value, so a run function reads `try command.value(Options.period)` and never looks a name up again.
///
/// swift-argument-parser's `@Option var kind: Kind` is the model; this keeps CommandLineKit's specs as plain
/// values (the help, man pages and completions are still generated from ``OptionSpec``).
public struct TypedOption<Value>: Sendable {
    /// The option as the parser, the help text and the completions see it.
    public var spec: OptionSpec
    private let convert: @Sendable (String) throws -> Value

    /// An option with a value that `parse` turns into `Value`.
    /// - Parameter parse: throws ``OptionValueError`` for a value the command line got wrong (a usage error,
    ///   exit 64); any other error (such as a validation error the program maps to its own code) goes through.
    public init(_ name: String, short: Character? = nil, value: String, help: String, required: Bool = false,
                completion: ValueCompletion? = nil, parse: @escaping @Sendable (String) throws -> Value) {
        spec = .option(name, short: short, value: value, help: help, required: required, completion: completion)
        convert = parse
    }

    /// The long name without dashes (`period`).
    public var name: String { spec.name }

    /// The same option with a command's own help text (the `--date` of `add` and of `edit` say different things).
    public func help(_ text: String) -> TypedOption {
        var copy = self
        copy.spec.help = text
        return copy
    }

    /// The same option, required: the parser refuses a command line without it.
    public func asRequired() -> TypedOption {
        var copy = self
        copy.spec.isRequired = true
        return copy
    }

    /// `text` as the option's value.
    /// - Throws: ``UsageError`` (for `path`) when `parse` throws ``OptionValueError``; else what `parse` throws.
    public func parse(_ text: String, path: [String]) throws -> Value {
        do {
            return try convert(text)
        } catch let error as OptionValueError {
            throw UsageError(error.message, path: path)
        }
    }
}

extension TypedOption where Value == String {
    /// An option whose value is its text as given.
    public static func text(_ name: String, short: Character? = nil, value: String, help: String,
                            required: Bool = false, completion: ValueCompletion? = nil) -> TypedOption {
        TypedOption(name, short: short, value: value, help: help, required: required, completion: completion) { $0 }
    }
}

extension TypedOption where Value == Int {
    /// An option whose value is a whole number within `range`; another value is refused as
    /// `Invalid value for '--max-line': expected an integer from 256 to 1073741824, not 'x'`.
    public static func integer(_ name: String, value: String, help: String, in range: ClosedRange<Int>,
                               required: Bool = false) -> TypedOption {
        TypedOption(name, value: value, help: help, required: required) { text in
            guard let number = Int(text), range.contains(number) else {
                throw OptionValueError("Invalid value for '--\(name)': expected an integer from \(range.lowerBound) to "
                                       + "\(range.upperBound), not '\(text)'")
            }
            return number
        }
    }
}

extension TypedOption where Value: Sendable {
    /// An enumerated option: its value is one of `choices`' words. Every enumerated option parses here, so
    /// each refuses another word the same way: `--by must be category or month, not 'week'`.
    /// - Parameter value: the placeholder; by default the words, such as `category|month`.
    public static func choice(_ name: String, value: String? = nil, help: String, required: Bool = false,
                              _ choices: [(word: String, value: Value)]) -> TypedOption {
        let words = choices.map(\.word)
        // Completion is inferred from the placeholder, as for any option: the words when it lists them.
        return TypedOption(name, value: value ?? words.joined(separator: "|"), help: help, required: required) { text in
            guard let match = choices.first(where: { $0.word == text }) else {
                throw OptionValueError("--\(name) must be \(Self.alternatives(words)), not '\(text)'")
            }
            return match.value
        }
    }

    /// An enumerated option over every case of `Value`, each written as its raw value.
    public static func choice(_ name: String, value: String? = nil, help: String, required: Bool = false) -> TypedOption
    where Value: CaseIterable & RawRepresentable, Value.RawValue == String {
        choice(name, value: value, help: help, required: required, Value.allCases.map { (word: $0.rawValue, value: $0) })
    }

    /// `a`, `a or b`, `a, b or c`.
    static func alternatives(_ words: [String]) -> String {
        guard let last = words.last, words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + last
    }
}

/// Thrown by a ``TypedOption``'s parse function for a value the command line got wrong; reported as a
/// ``UsageError`` of the command (exit 64) with this message.
public struct OptionValueError: Error, Sendable, Equatable {
    /// What was wrong, such as `--by must be category or month, not 'week'`.
    public var message: String

    public init(_ message: String) { self.message = message }
}

extension ParsedCommand {
    /// The value of `option`, parsed, or `nil` when it was not given.
    /// - Precondition: the command's spec declares `option` (``ParsedCommand/declares(_:)``).
    /// - Throws: ``UsageError`` for a value the option refuses; what its parse function throws otherwise.
    public func value<Value>(_ option: TypedOption<Value>) throws -> Value? {
        try text(option.spec).map { try option.parse($0, path: path) }
    }

    /// Every value given for `option`, parsed, in the order given; empty when it was not given.
    /// - Precondition: the command's spec declares `option` (``ParsedCommand/declares(_:)``).
    /// - Throws: ``UsageError`` for a value the option refuses; what its parse function throws otherwise.
    public func values<Value>(_ option: TypedOption<Value>) throws -> [Value] {
        try texts(option.spec).map { try option.parse($0, path: path) }
    }

    /// The value of an option whose parse function throws only ``OptionValueError`` (a ``TypedOption/choice(_:value:help:required:_:)``,
    /// ``TypedOption/text(_:short:value:help:required:completion:)`` or ``TypedOption/integer(_:value:help:in:required:)``),
    /// for run functions that throw only usage errors.
    /// - Precondition: the command's spec declares `option`.
    /// - Throws: ``UsageError`` for a value the option refuses.
    public func choice<Value>(_ option: TypedOption<Value>) throws(UsageError) -> Value? {
        do {
            return try value(option)
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError("Invalid value for '--\(option.name)': \(error)", path: path)
        }
    }

    /// The text of an option whose value is its text (``TypedOption/text(_:short:value:help:required:completion:)``).
    /// - Precondition: the command's spec declares `option`.
    public subscript(option: TypedOption<String>) -> String? { text(option.spec) }

    /// Whether `option` was given (its value unparsed).
    /// - Precondition: the command's spec declares `option`.
    public func has<Value>(_ option: TypedOption<Value>) -> Bool { has(option.spec) }
}
