/// The result of parsing a command line for a runnable command.
public struct ParsedCommand: Sendable, Equatable {
    /// The subcommand path below the program, such as `["config", "set"]`; empty for the root.
    public var path: [String]
    /// Positional arguments by their spec name.
    public var arguments: [String: String]
    /// Option values by long name (the last occurrence wins, as in swift-argument-parser).
    public var options: [String: String]
    /// Flags that were given, by long name.
    public var flags: Set<String>
    /// Every word a variadic argument took, by its spec name (its first word is also in ``arguments``).
    public var lists: [String: [String]]

    public init(path: [String], arguments: [String: String] = [:], options: [String: String] = [:], flags: Set<String> = [],
                lists: [String: [String]] = [:]) {
        self.path = path
        self.arguments = arguments
        self.options = options
        self.flags = flags
        self.lists = lists
    }

    /// Every word of the variadic argument `name` (empty when none was given).
    public func arguments(_ name: String) -> [String] { lists[name] ?? arguments[name].map { [$0] } ?? [] }

    /// The value of the option `--name`, if given.
    public func option(_ name: String) -> String? { options[name] }

    /// The positional argument `name`, if given.
    public func argument(_ name: String) -> String? { arguments[name] }

    /// Whether the flag `--name` was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }
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
