/// The result of parsing a command line for a runnable command.
///
/// A run function reads what was given only through the declarations its spec was built from:
/// `command[Options.json]` for a ``Flag``, `try command.value(Options.period)` for a ``TypedOption``,
/// `command[Arguments.id]` for an ``Argument``. There is no read by name, and reading an option or argument
/// the command's spec does not declare (another command's option, or one
/// with the same name but another placeholder) stops the program with a message naming both: a run function
/// and its spec can never silently disagree.
public struct ParsedCommand: Sendable {
    /// The subcommand path below the program, such as `["config", "set"]`; empty for the root.
    public var path: [String]
    /// Positional arguments by their spec name.
    var arguments: [String: String]
    /// Option values by long name (the last occurrence wins, as in swift-argument-parser).
    var options: [String: String]
    /// Flags that were given, by long name.
    var flags: Set<String>
    /// Every word a variadic argument took, by its spec name (its first word is also in ``arguments``).
    var lists: [String: [String]]
    /// Every value of each option, in the order given, by long name: an option that may be given more than once
    /// (`--part`) reads them all (``texts(_:)``); ``options`` keeps the last.
    var repeated: [String: [String]] = [:]
    /// The options and flags the command's spec declares: long name → placeholder (empty for a flag).
    let declared: [String: String]
    /// The positional arguments the command's spec declares, by name.
    let declaredArguments: Set<String>

    /// - Parameters:
    ///   - declaring: the options and flags of the command's spec; the parser passes its spec's.
    ///   - declaringArguments: its positional arguments.
    public init(path: [String], arguments: [String: String] = [:], options: [String: String] = [:], flags: Set<String> = [],
                lists: [String: [String]] = [:], declaring: [OptionSpec] = [], declaringArguments: [ArgumentSpec] = []) {
        self.path = path
        self.arguments = arguments
        self.options = options
        self.flags = flags
        self.lists = lists
        var declared: [String: String] = [:]
        for spec in declaring { declared[spec.name] = spec.valueName ?? "" }
        self.declared = declared
        declaredArguments = Set(declaringArguments.map(\.name))
    }


    /// Whether `flag` was given.
    /// - Precondition: the command's spec declares `flag` (see ``check(_:)``).
    public subscript(flag: Flag) -> Bool {
        check(flag.spec)
        return flags.contains(flag.name)
    }

    /// The text given for `option`, unparsed, if any.
    /// - Precondition: the command's spec declares `option` (see ``check(_:)``).
    public func text(_ option: OptionSpec) -> String? {
        check(option)
        return options[option.name]
    }

    /// Every text given for `option`, in order: empty when it was not given.
    /// - Precondition: the command's spec declares `option` (see ``check(_:)``).
    public func texts(_ option: OptionSpec) -> [String] {
        check(option)
        return repeated[option.name] ?? options[option.name].map { [$0] } ?? []
    }

    /// Whether `option` (an option or a flag) was given.
    /// - Precondition: the command's spec declares it (see ``check(_:)``).
    public func has(_ option: OptionSpec) -> Bool {
        check(option)
        return option.isFlag ? flags.contains(option.name) : options[option.name] != nil
    }

    /// Whether the command's spec declares `option`: its long name, as a flag or as an option with the same
    /// placeholder (so `stats --by` is not read as `summary --by`, whose words differ).
    public func declares(_ option: OptionSpec) -> Bool { declared[option.name] == (option.valueName ?? "") }

    /// Stops the program when the command's spec does not declare `option`: a run function that reads an option
    /// its spec lacks is a programming error that would otherwise read nothing, silently, on every run.
    func check(_ option: OptionSpec) {
        precondition(declares(option), "'\((path).joined(separator: " "))' reads \(option.synopsis), which its spec does not declare")
    }
}

extension ParsedCommand: Equatable {
    /// Two commands are equal when they were given the same words; the declarations of their specs are not compared.
    public static func == (lhs: ParsedCommand, rhs: ParsedCommand) -> Bool {
        lhs.path == rhs.path && lhs.arguments == rhs.arguments && lhs.options == rhs.options && lhs.flags == rhs.flags
            && lhs.lists == rhs.lists
    }
}

/// What the command line asks for.
public enum ParseOutcome: Sendable, Equatable {
    /// Run a command.
    case run(ParsedCommand)
    /// Print the help of the command at this path (empty: the root).
    case help(path: [String])
    /// Print the version.
    case version
}
