/// The description of one command: its name, what it does, its arguments, options and subcommands.
///
/// A tree of specs is the single source for both parsing and the generated help text, so the two never disagree.
public struct CommandSpec: Sendable {
    /// The word that selects this command (`add`); the root's name is the program's name (`expense`).
    public var name: String
    /// One line for OVERVIEW and for the parent's SUBCOMMANDS list.
    public var abstract: String
    /// Optional paragraphs printed after the overview line.
    public var discussion: String
    /// Positional arguments, in order.
    public var arguments: [ArgumentSpec]
    /// Options and flags (`--help` is added automatically).
    public var options: [OptionSpec]
    /// Subcommands; a command with subcommands and `runnable == false` requires one.
    public var subcommands: [CommandSpec]
    /// Whether the command does something by itself when no subcommand is given.
    public var runnable: Bool
    /// The subcommand run when none is named: the command line is empty after this command, or goes on with an
    /// option (`expensed --listen …` is `expensed serve --listen …`). `--help`, `-h` and `--version` right after
    /// this command still concern this command itself, and a word that names no subcommand is still an error.
    public var defaultSubcommand: String?
    /// Options of which at most one (or, when required, exactly one) may be given, such as `--mine | --theirs`.
    public var exclusiveGroups: [OptionGroup]

    public init(name: String, abstract: String, discussion: String = "", arguments: [ArgumentSpec] = [],
                options: [OptionSpec] = [], exclusiveGroups: [OptionGroup] = [], subcommands: [CommandSpec] = [],
                runnable: Bool? = nil, defaultSubcommand: String? = nil) {
        precondition(arguments.drop(while: { !$0.isOptional }).allSatisfy(\.isOptional),
                     "optional positional arguments must come after the required ones")
        precondition(arguments.dropLast().allSatisfy { !$0.isVariadic }, "only the last argument may be variadic")
        precondition(defaultSubcommand.map { name in subcommands.contains { $0.name == name } } ?? true,
                     "the default subcommand must be one of the subcommands")
        precondition(exclusiveGroups.allSatisfy { group in
            group.names.count > 1 && group.names.allSatisfy { name in options.contains { $0.name == name && !$0.isRequired } }
        }, "an exclusive group names two or more of the command's own options, none of them required alone")
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
        self.runnable = runnable ?? subcommands.isEmpty
        self.defaultSubcommand = defaultSubcommand
        self.exclusiveGroups = exclusiveGroups
    }

    /// The subcommand called `name`, if any.
    public func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }

    /// The group `option` belongs to, if any.
    public func exclusiveGroup(of option: String) -> OptionGroup? {
        exclusiveGroups.first { $0.names.contains(option) }
    }

    /// The option written `token` (`--date` or `-d`), including the implicit `--help`/`-h`.
    public func option(for token: String) -> OptionSpec? {
        (options + [OptionSpec.help]).first { "--" + $0.name == token || ($0.short.map { "-" + String($0) } == token) }
    }
}

/// A positional argument.
public struct ArgumentSpec: Sendable {
    /// Shown in usage as `<name>`, and the key of the parsed value.
    public var name: String
    public var help: String
    public var isOptional: Bool
    /// Whether it takes every remaining positional word (shown as `<name> ...`); only the last argument may.
    public var isVariadic: Bool
    /// What a shell offers for this argument.
    public var completion: ValueCompletion

    /// - Parameter completion: what shells offer; by default inferred from `name` (``ValueCompletion/inferred(from:)``).
    public init(_ name: String, help: String, optional: Bool = false, variadic: Bool = false,
                completion: ValueCompletion? = nil) {
        self.name = name
        self.help = help
        self.isOptional = optional
        self.isVariadic = variadic
        self.completion = completion ?? .inferred(from: name)
    }
}

/// Options of one command that exclude each other: `(--mine | --theirs | --edit)` when one is required,
/// `[--json | --csv]` when none need be given. The parser refuses two of them, or none of a required group.
public struct OptionGroup: Sendable, Equatable {
    /// The options' long names, in the order the usage line shows them.
    public var names: [String]
    /// Whether exactly one must be given (else at most one).
    public var isRequired: Bool

    /// Exactly one of `names` must be given.
    public static func exactlyOne(_ names: String...) -> OptionGroup { OptionGroup(names: names, isRequired: true) }

    /// At most one of `names` may be given.
    public static func atMostOne(_ names: String...) -> OptionGroup { OptionGroup(names: names, isRequired: false) }

    /// Exactly one of `options` must be given: the group of the declared options themselves, so no name is
    /// written twice.
    public static func exactlyOne(_ options: OptionSpec...) -> OptionGroup {
        OptionGroup(names: options.map(\.name), isRequired: true)
    }

    /// At most one of `options` may be given.
    public static func atMostOne(_ options: OptionSpec...) -> OptionGroup {
        OptionGroup(names: options.map(\.name), isRequired: false)
    }
}

/// What a shell's completion offers for an option's value or a positional argument.
public enum ValueCompletion: Sendable, Equatable {
    /// Nothing: free text such as an amount or a note.
    case none
    /// File names.
    case file
    /// Directory names.
    case directory
    /// One of these words.
    case choices([String])

    /// Inferred from a placeholder: `file` → files, `dir` → directories, `csv|json` → those words, else nothing.
    public static func inferred(from placeholder: String) -> ValueCompletion {
        switch placeholder {
        case "file", "path": return .file
        case "dir", "directory": return .directory
        default:
            let words = placeholder.split(separator: "|").map(String.init)
            return words.count > 1 ? .choices(words) : .none
        }
    }
}

/// An option taking a value (`--date <date>`) or a flag (`--json`).
public struct OptionSpec: Sendable {
    /// The long name without dashes (`date`).
    public var name: String
    /// An optional one-letter short name (`-d`).
    public var short: Character?
    /// The value's placeholder (`date`), or `nil` for a flag.
    public var valueName: String?
    public var help: String
    /// Whether the option must be given (shown without brackets in the usage line); only for options with a value.
    public var isRequired: Bool = false
    /// What a shell offers for the value (``ValueCompletion/none`` for a flag).
    public var completion: ValueCompletion = .none

    /// An option with a value; a `required` one must be given, else parsing fails with a usage error.
    /// `completion` (what shells offer for the value) is inferred from `value` unless given.
    public static func option(_ name: String, short: Character? = nil, value: String, help: String,
                              required: Bool = false, completion: ValueCompletion? = nil) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: value, help: help, isRequired: required,
                   completion: completion ?? .inferred(from: value))
    }

    /// A flag, present or not.
    public static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: nil, help: help)
    }

    /// The implicit `--help`/`-h` every command has.
    public static let help = OptionSpec.flag("help", short: "h", help: "Show help information.")

    /// Whether this is a flag (takes no value).
    public var isFlag: Bool { valueName == nil }

    /// `-d, --date <date>` or `--json`.
    public var synopsis: String {
        var text = short.map { "-\($0), " } ?? ""
        text += "--" + name
        if let valueName { text += " <\(valueName)>" }
        return text
    }
}
