/// A man page in roff (the `man` macros) generated from a ``CommandSpec`` tree: NAME, SYNOPSIS (every command's
/// usage line, as in `--help`), DESCRIPTION, COMMANDS (each command with its arguments and options), the
/// sections of the help footer (`EXIT CODES:` becomes EXIT STATUS, `ENVIRONMENT:` stays), and SEE ALSO.
public struct ManualPage: Sendable {
    /// The manual section: 1 for user commands, 8 for system administration.
    public var section: Int
    /// The page's date, `YYYY-MM-DD` (fixed, so the generated page only changes when the specs do).
    public var date: String
    /// The program's name and version for the page footer, such as `expense 0.1.0`.
    public var source: String
    /// The text appended to every help page (sections headed `NAME:` at the start of a line).
    public var footer: String
    /// Related pages, such as `expensed(8)`.
    public var seeAlso: [String]

    /// A page description; ``render(root:)`` writes the page of a command tree with it.
    public init(section: Int, date: String, source: String, footer: String, seeAlso: [String] = []) {
        self.section = section
        self.date = date
        self.source = source
        self.footer = footer
        self.seeAlso = seeAlso
    }

    /// The `man` subcommand a program adds to its tree: `tool man` prints the page.
    public static func command(program: String, section: Int) -> CommandSpec {
        CommandSpec(name: "man", abstract: "Print the manual page \(program)(\(section)) as roff.",
                    discussion: "  Read it with `\(program) man | man -l -`, or install it as \(program).\(section).")
    }

    /// The page of `root`'s program.
    public func render(root: CommandSpec) -> String {
        let title = section == 8 ? "System Manager's Manual" : "User Commands"
        var page = """
            .\\" Generated from the command specs of \(root.name) by CommandLineKit (`\(root.name) man`); do not edit.
            .TH \(root.name.uppercased()) \(section) \(date) \(Self.quoted(source)) \(Self.quoted(title))
            .SH NAME
            \(Self.escape(root.name)) \\- \(Self.escape(Self.sentence(root.abstract)))
            .SH SYNOPSIS

            """
        let commands = Self.commands(of: root)
        var synopses = commands.compactMap { HelpFormatter.usage(root: root, path: $0.path) }
        if HelpCommand.isImplicit(in: root) { synopses.append(HelpFormatter.usage(root: root, path: [HelpCommand.name]) ?? "") }
        synopses.append("\(root.name) --version")
        page += synopses.map { Self.usage($0) + "\n" }.joined(separator: ".br\n")
        page += ".SH DESCRIPTION\n" + Self.escape(root.abstract) + "\n"
        page += Self.paragraphs(root.discussion)
        page += ".SH COMMANDS\n"
        for (path, spec) in commands {
            page += ".SS " + Self.quoted(([root.name] + path).joined(separator: " ")) + "\n"
            page += Self.usage(HelpFormatter.usage(root: root, path: path) ?? "") + "\n"
            page += ".PP\n" + Self.escape(spec.abstract) + "\n" + Self.paragraphs(spec.discussion)
            for argument in spec.arguments {
                page += ".TP\n\\fI\(Self.escape(argument.name))\\fR\n\(Self.escape(argument.help))\n"
            }
            for option in spec.options {
                var term = option.short.map { "\\fB\\-\(Self.escape(String($0)))\\fR, " } ?? ""
                term += "\\fB\\-\\-\(Self.escape(option.name))\\fR"
                if let value = option.valueName { term += " \\fI\(Self.escape(value))\\fR" }
                page += ".TP\n\(term)\n\(Self.escape(option.help))\n"
            }
        }
        page += ".SH OPTIONS\n.TP\n\\fB\\-\\-version\\fR\nShow the version.\n"
        page += ".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nShow help information (also `\(Self.escape(root.name)) help COMMAND`).\n"
        for (heading, lines) in Self.footerSections(footer) {
            page += ".SH \(heading == "EXIT CODES" ? "EXIT STATUS" : heading)\n.nf\n"
            page += lines.map { Self.escape($0) + "\n" }.joined() + ".fi\n"
        }
        if !seeAlso.isEmpty {
            page += ".SH SEE ALSO\n" + seeAlso.map { reference in
                guard let open = reference.firstIndex(of: "(") else { return ".BR " + Self.escape(reference) }
                return ".BR " + Self.escape(String(reference[..<open])) + " " + Self.escape(String(reference[open...]))
            }.joined(separator: " ,\n") + "\n"
        }
        return page
    }

    /// Every command that runs something, depth first, with its path below the program.
    static func commands(of root: CommandSpec) -> [(path: [String], spec: CommandSpec)] {
        var result: [(path: [String], spec: CommandSpec)] = []
        func visit(_ spec: CommandSpec, path: [String]) {
            if spec.runnable { result.append((path, spec)) }
            for child in spec.subcommands { visit(child, path: path + [child.name]) }
        }
        visit(root, path: [])
        return result
    }

    /// A usage line with the command words in bold and the placeholders in italics.
    static func usage(_ line: String) -> String {
        line.split(separator: " ").map { word -> String in
            let text = escape(String(word))
            if word.contains("<") { return text.replacingAll("<", with: "\\fI").replacingAll(">", with: "\\fR") }
            return word.first?.isLetter == true ? "\\fB" + text + "\\fR" : text
        }.joined(separator: " ")
    }

    /// The footer's sections: a line `HEADING:` at the start of a line opens one; its lines lose their common indent.
    static func footerSections(_ footer: String) -> [(String, [String])] {
        var sections: [(String, [String])] = []
        for line in footer.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if let first = line.first, first != " ", line.hasSuffix(":") {
                sections.append((String(line.dropLast()), []))
            } else if !sections.isEmpty {
                sections[sections.count - 1].1.append(line)
            }
        }
        return sections.map { heading, lines in
            var lines = lines
            while lines.last?.allSatisfy({ $0 == " " }) == true { lines.removeLast() }
            let indent = lines.filter { !$0.allSatisfy { $0 == " " } }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
            return (heading, lines.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) })
        }
    }

    /// Discussion text as filled paragraphs (its lines joined; a blank line starts a new paragraph).
    static func paragraphs(_ text: String) -> String {
        guard !text.isEmpty else { return "" }
        var result = ""
        var current: [String] = []
        func flush() {
            if !current.isEmpty { result += ".PP\n" + current.map(escape).joined(separator: "\n") + "\n" }
            current = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = String(line.drop { $0 == " " })
            if trimmed.isEmpty { flush() } else { current.append(trimmed) }
        }
        flush()
        return result
    }

    /// Text safe in roff: backslashes as `\e`, minus signs as `\-`, and a leading `.` or `'` guarded by `\&`.
    static func escape(_ text: String) -> String {
        var escaped = text.replacingAll("\\", with: "\\e").replacingAll("-", with: "\\-")
        if escaped.hasPrefix(".") || escaped.hasPrefix("'") { escaped = "\\&" + escaped }
        return escaped
    }

    /// A macro argument in double quotes (a double quote inside written `\(dq`).
    static func quoted(_ text: String) -> String { "\"" + escape(text).replacingAll("\"", with: "\\(dq") + "\"" }

    /// `text` without its final full stop (the NAME line is a phrase).
    static func sentence(_ text: String) -> String { text.hasSuffix(".") ? String(text.dropLast()) : text }
}
