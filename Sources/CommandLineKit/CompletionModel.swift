/// What shell completion needs to know about one command of a spec tree, flattened so that each shell's
/// script is a table lookup keyed by the command's path (`""`, `"config"`, `"config set"`).
struct CompletionNode {
    /// The subcommand words below the program, joined by spaces (`config set`); empty for the program.
    var key: String
    /// The subcommands offered here, with their one-line abstracts (the program also offers `help`).
    var subcommands: [(name: String, abstract: String)]
    /// Every option accepted here, long form, with its help (`--help`, and `--version` on the program, included).
    /// A command with a default subcommand also accepts that subcommand's options, as the parser does.
    var options: [(token: String, short: Character?, help: String)]
    /// The spellings (`--data`, `-d`) of the options here that take a value, with what to offer for it.
    var valued: [(token: String, completion: ValueCompletion)]
    /// What to offer for each positional argument, in order.
    var arguments: [ValueCompletion]
    /// The default subcommand, which an option here selects (`expensed --listen …` is `expensed serve --listen …`).
    var fallback: String?

    /// Every command of `root`'s tree, the program first, depth first.
    static func nodes(of root: CommandSpec) -> [CompletionNode] {
        var nodes: [CompletionNode] = []
        func visit(_ spec: CommandSpec, path: [String]) {
            nodes.append(node(for: spec, path: path, root: root))
            for child in spec.subcommands { visit(child, path: path + [child.name]) }
        }
        visit(root, path: [])
        return nodes
    }

    private static func node(for spec: CommandSpec, path: [String], root: CommandSpec) -> CompletionNode {
        var subcommands = spec.subcommands.map { ($0.name, $0.abstract) }
        if path.isEmpty, HelpCommand.isImplicit(in: root) { subcommands.append((HelpCommand.name, HelpCommand.spec.abstract)) }
        var accepted = spec.options
        if let name = spec.defaultSubcommand, let fallback = spec.subcommand(named: name) {
            accepted += fallback.options.filter { option in !accepted.contains { $0.name == option.name } }
        }
        var options = accepted.map { ("--" + $0.name, $0.short, $0.help) }
        if path.isEmpty { options.append(("--version", nil, "Show the version.")) }
        options.append(("--" + OptionSpec.help.name, OptionSpec.help.short, OptionSpec.help.help))
        var valued: [(String, ValueCompletion)] = []
        for option in accepted where !option.isFlag {
            valued.append(("--" + option.name, option.completion))
            if let short = option.short { valued.append(("-" + String(short), option.completion)) }
        }
        return CompletionNode(key: path.joined(separator: " "), subcommands: subcommands, options: options,
                              valued: valued, arguments: spec.arguments.map(\.completion), fallback: spec.defaultSubcommand)
    }
}

/// The shells ``CompletionScript`` writes for.
public enum Shell: String, Sendable, CaseIterable {
    /// GNU bash with programmable completion (`complete -F`).
    case bash
    /// zsh with its completion system (`compinit`, `#compdef`).
    case zsh
    /// fish (`complete -c`).
    case fish
}

/// Quoting for generated shell text.
enum ShellQuote {
    /// `text` in single quotes, safe in bash, zsh and fish: `it's` → `'it'\''s'` (bash, zsh) or `'it\'s'` (fish).
    static func single(_ text: String, fish: Bool = false) -> String {
        if fish {
            return "'" + text.replacingAll("\\", with: "\\\\").replacingAll("'", with: "\\'") + "'"
        }
        return "'" + text.replacingAll("'", with: "'\\''") + "'"
    }

    /// A name safe inside a shell function name (letters, digits and `_`; anything else becomes `_`).
    static func identifier(_ text: String) -> String {
        String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    }
}

extension String {
    /// Every occurrence of `target` replaced (the standard library alone, without Foundation).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
