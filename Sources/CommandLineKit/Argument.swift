/// A positional argument declared once: its spec (name, help, completion) and the value a run function reads,
/// `command[Arguments.id]`, so no run function looks an argument up by its name. Reading an argument the
/// command's spec does not declare stops the program (``ParsedCommand/subscript(_:)-(Argument)``), as for options.
public struct Argument: Sendable {
    /// The argument as the parser, the help text and the completions see it.
    public var spec: ArgumentSpec

    /// The argument `<name>`; `completion` is inferred from `name` unless given.
    public init(_ name: String, help: String, completion: ValueCompletion? = nil) {
        spec = ArgumentSpec(name, help: help, completion: completion)
    }

    /// The long name, shown as `<name>`.
    public var name: String { spec.name }

    /// The same argument with a command's own help text.
    public func help(_ text: String) -> Argument {
        var copy = self
        copy.spec.help = text
        return copy
    }

    /// The same argument, optional (it must come after the required ones).
    public func asOptional() -> Argument {
        var copy = self
        copy.spec.isOptional = true
        return copy
    }

    /// The same argument, optional and taking every remaining word (the last argument only).
    public func asVariadic() -> Argument {
        var copy = asOptional()
        copy.spec.isVariadic = true
        return copy
    }
}

extension ParsedCommand {
    /// The word given for `argument`, if any (a variadic argument's first).
    /// - Precondition: the command's spec declares `argument`.
    public subscript(argument: Argument) -> String? {
        check(argument)
        return arguments[argument.name]
    }

    /// Every word of the variadic `argument` (empty when none was given; one word for another argument).
    /// - Precondition: the command's spec declares `argument`.
    public func words(_ argument: Argument) -> [String] {
        check(argument)
        return lists[argument.name] ?? arguments[argument.name].map { [$0] } ?? []
    }

    /// Stops the program when the command's spec does not declare `argument` (see ``check(_:)-(OptionSpec)``).
    func check(_ argument: Argument) {
        precondition(declaredArguments.contains(argument.name),
                     "'\(path.joined(separator: " "))' reads <\(argument.name)>, which its spec does not declare")
    }
}
