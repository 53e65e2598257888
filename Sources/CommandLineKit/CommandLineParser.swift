/// Parses a command line against a tree of ``CommandSpec``s, following swift-argument-parser's conventions:
///
/// - subcommands are selected by their leading words (`expense config set …`);
/// - `--name value` and `--name=value` both give an option its value; flags take none;
/// - `--` ends options, so every later token is positional (`expense add -- -3 food`);
/// - any other token starting with `-` that is not a known option is a usage error, so a negative number
///   cannot reach a command by accident;
/// - `--help`/`-h` anywhere, and `help SUBCOMMAND`, ask for help; `--version` on the root asks for the version.
public enum CommandLineParser {
    /// Parses `arguments` (without the program name).
    /// - Throws: ``UsageError``.
    public static func parse(_ arguments: [String], root: CommandSpec) throws(UsageError) -> ParseOutcome {
        if arguments.first == "help", root.subcommand(named: "help") == nil {
            return .help(path: try helpPath(Array(arguments.dropFirst()), root: root))
        }
        var spec = root
        var path: [String] = []
        var index = 0
        while index < arguments.count, let next = spec.subcommand(named: arguments[index]) {
            spec = next
            path.append(next.name)
            index += 1
        }
        if let fallback = defaultSubcommand(of: spec, next: index < arguments.count ? arguments[index] : nil) {
            spec = fallback
            path.append(fallback.name)
        }

        var positionals: [String] = []
        var options: [String: String] = [:]
        var repeated: [String: [String]] = [:]
        var flags: Set<String> = []
        var optionsEnded = false
        while index < arguments.count {
            let token = arguments[index]
            index += 1
            if optionsEnded || token == "-" || !token.hasPrefix("-") {
                if !optionsEnded, !spec.subcommands.isEmpty, spec.arguments.isEmpty {
                    throw unknownSubcommand(token, of: spec, path: path, root: root)
                }
                positionals.append(token)
                continue
            }
            if token == "--" {
                optionsEnded = true
                continue
            }
            if path.isEmpty, token == "--version" { return .version }
            var name = token
            var inlineValue: String?
            if token.hasPrefix("--"), let equals = token.firstIndex(of: "=") {
                name = String(token[..<equals])
                inlineValue = String(token[token.index(after: equals)...])
            }
            guard let option = spec.option(for: name) else {
                throw UsageError("Unknown option '\(token)'", path: path)
            }
            if option.name == OptionSpec.help.name { return .help(path: path) }
            if option.isFlag {
                guard inlineValue == nil else {
                    throw UsageError("The flag '--\(option.name)' does not take a value", path: path)
                }
                flags.insert(option.name)
            } else if let inlineValue {
                options[option.name] = inlineValue
                repeated[option.name, default: []].append(inlineValue)
            } else {
                guard index < arguments.count, !looksLikeOption(arguments[index], in: spec) else {
                    throw UsageError("Missing value for '\(option.synopsis)'", path: path)
                }
                options[option.name] = arguments[index]
                repeated[option.name, default: []].append(arguments[index])
                index += 1
            }
        }

        guard spec.runnable else {
            if positionals.isEmpty, options.isEmpty, flags.isEmpty { return .help(path: path) }
            throw UsageError("Missing subcommand", path: path)
        }
        if positionals.count > spec.arguments.count, spec.arguments.last?.isVariadic != true {
            throw UsageError("Unexpected argument '\(positionals[spec.arguments.count])'", path: path)
        }
        var values: [String: String] = [:]
        var lists: [String: [String]] = [:]
        for (offset, argument) in spec.arguments.enumerated() {
            if offset < positionals.count {
                values[argument.name] = positionals[offset]
                if argument.isVariadic { lists[argument.name] = Array(positionals[offset...]) }
            } else if !argument.isOptional {
                throw UsageError("Missing expected argument '<\(argument.name)>'", path: path)
            }
        }
        if let missing = spec.options.first(where: { $0.isRequired && options[$0.name] == nil }) {
            throw UsageError("Missing expected argument '\(missing.synopsis)'", path: path)
        }
        for group in spec.exclusiveGroups {
            let given = group.names.filter { options[$0] != nil || flags.contains($0) }
            if given.count > 1 || (group.isRequired && given.isEmpty) {
                let names = group.names.map { "--" + $0 }.joined(separator: ", ")
                throw UsageError("Give \(group.isRequired ? "exactly" : "at most") one of \(names)", path: path)
            }
        }
        var command = ParsedCommand(path: path, arguments: values, options: options, flags: flags, lists: lists,
                                    declaring: spec.options, declaringArguments: spec.arguments)
        command.repeated = repeated
        return .run(command)
    }

    /// The default subcommand of `spec` when `next` (the first token after it, if any) names none: nothing
    /// follows, or an option other than `--help`, `-h` and `--version` does.
    private static func defaultSubcommand(of spec: CommandSpec, next: String?) -> CommandSpec? {
        guard let name = spec.defaultSubcommand, let fallback = spec.subcommand(named: name) else { return nil }
        guard let next else { return fallback }
        guard next.hasPrefix("-"), next != "-", !["--help", "-h", "--version"].contains(next) else { return nil }
        return fallback
    }

    /// The command `help a b` names; every word must be a subcommand. `help help` is the help command itself.
    private static func helpPath(_ words: [String], root: CommandSpec) throws(UsageError) -> [String] {
        if words.first == HelpCommand.name {
            guard words.count == 1 else { throw UsageError("Unexpected argument '\(words[1])'", path: [HelpCommand.name]) }
            return [HelpCommand.name]
        }
        var spec = root
        var path: [String] = []
        for word in words {
            guard let next = spec.subcommand(named: word) else {
                throw unknownSubcommand(word, of: spec, path: path, root: root)
            }
            spec = next
            path.append(word)
        }
        return path
    }

    /// A following token is taken as a value unless it is `--` or one of the command's own options.
    private static func looksLikeOption(_ token: String, in spec: CommandSpec) -> Bool {
        if token == "--" { return true }
        let name = token.split(separator: "=", maxSplits: 1).first.map(String.init) ?? token
        return spec.option(for: name) != nil
    }

    /// `Unknown subcommand 'lst'; did you mean 'list'?` (the guess only when one is near enough).
    private static func unknownSubcommand(_ word: String, of spec: CommandSpec, path: [String], root: CommandSpec) -> UsageError {
        var names = spec.subcommands.map(\.name)
        if path.isEmpty, HelpCommand.isImplicit(in: root) { names.append(HelpCommand.name) }
        let guess = Suggestion.nearest(to: word, among: names).map { "; did you mean '\($0)'?" } ?? ""
        return UsageError("Unknown subcommand '\(word)'\(guess)", path: path)
    }

    /// The spec at `path` below `root`, if every word names a subcommand; `["help"]` is the implicit help
    /// command when `root` has no `help` subcommand of its own.
    public static func spec(at path: [String], root: CommandSpec) -> CommandSpec? {
        if path == [HelpCommand.name], HelpCommand.isImplicit(in: root) { return HelpCommand.spec }
        var spec = root
        for word in path {
            guard let next = spec.subcommand(named: word) else { return nil }
            spec = next
        }
        return spec
    }
}
