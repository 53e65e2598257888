/// Generates help text (OVERVIEW, USAGE, ARGUMENTS, OPTIONS, SUBCOMMANDS) from a ``CommandSpec``.
public enum HelpFormatter {
    /// The full help of the command at `path` below `root`; `footer` (exit codes, environment) is appended.
    public static func help(root: CommandSpec, path: [String], footer: String = "") -> String {
        guard let spec = CommandLineParser.spec(at: path, root: root) else { return "" }
        var text = "OVERVIEW: \(spec.abstract)\n"
        if !spec.discussion.isEmpty { text += "\n" + spec.discussion + "\n" }
        text += "\nUSAGE: \(usage(root: root, path: path) ?? root.name)\n"
        if !spec.arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            text += rows(spec.arguments.map { ("<\($0.name)>", $0.help) })
        }
        text += "\nOPTIONS:\n"
        var optionRows = spec.options.map { ($0.synopsis, $0.help) }
        if path.isEmpty { optionRows.append(("--version", "Show the version.")) }
        optionRows.append((OptionSpec.help.synopsis, OptionSpec.help.help))
        text += rows(optionRows)
        if !spec.subcommands.isEmpty {
            text += "\nSUBCOMMANDS:\n"
            text += rows(spec.subcommands.map { ($0.name == spec.defaultSubcommand ? "\($0.name) (default)" : $0.name, $0.abstract) })
            let command = ([root.name, "help"] + path).joined(separator: " ")
            text += "\n  See '\(command) <subcommand>' for detailed help.\n"
        }
        if !footer.isEmpty { text += "\n" + footer + (footer.hasSuffix("\n") ? "" : "\n") }
        return text
    }

    /// The one-line usage of the command at `path`, such as
    /// `expense add <amount> <category> [--date <date>] [--note <note>]`; `nil` for an unknown path.
    public static func usage(root: CommandSpec, path: [String]) -> String? {
        guard let spec = CommandLineParser.spec(at: path, root: root) else { return nil }
        var parts = [root.name] + path
        if !spec.subcommands.isEmpty { parts.append(spec.defaultSubcommand == nil ? "<subcommand>" : "[<subcommand>]") }
        parts += spec.arguments.map { argument in
            let text = "<\(argument.name)>" + (argument.isVariadic ? " ..." : "")
            return argument.isOptional ? "[" + text + "]" : text
        }
        for option in spec.options {
            guard let group = spec.exclusiveGroup(of: option.name) else {
                parts.append(option.isRequired ? usageText(option) : "[" + usageText(option) + "]")
                continue
            }
            // A group is shown once, where its first option stands: `(--mine | --theirs)` or `[--a | --b]`.
            guard group.names.first == option.name else { continue }
            let members = group.names.compactMap { name in spec.options.first { $0.name == name } }.map(usageText)
            let text = members.joined(separator: " | ")
            parts.append(group.isRequired ? "(" + text + ")" : "[" + text + "]")
        }
        return parts.joined(separator: " ")
    }

    /// `--date <date>` or `--json`.
    private static func usageText(_ option: OptionSpec) -> String {
        "--\(option.name)" + (option.valueName.map { " <\($0)>" } ?? "")
    }

    private static func rows(_ rows: [(String, String)]) -> String {
        let width = min(max(rows.map(\.0.count).max() ?? 0, 10), 28)
        return rows.map { left, right in
            let padding = left.count < width ? String(repeating: " ", count: width - left.count) : ""
            if left.count > width { return "  \(left)\n  \(String(repeating: " ", count: width))  \(right)\n" }
            return "  \(left)\(padding)  \(right)\n"
        }.joined()
    }
}
