import CommandLineKit
import Testing

private let root = CommandSpec(
    name: "tool", abstract: "A test tool.",
    subcommands: [
        CommandSpec(name: "add", abstract: "Add a thing.",
                    arguments: [ArgumentSpec("amount", help: "How much.")],
                    options: [.option("date", short: "d", value: "date", help: "The day."), .flag("json", help: "JSON.")]),
    ])

@Test func helpHasEverySection() {
    let rootHelp = HelpFormatter.help(root: root, path: [], footer: "EXIT CODES:\n  0 ok")
    for section in ["OVERVIEW: A test tool.", "USAGE: tool <subcommand>", "OPTIONS:", "--version", "-h, --help",
                    "SUBCOMMANDS:", "  add", "Add a thing.", "EXIT CODES:"] {
        #expect(rootHelp.contains(section), "missing \(section)")
    }
    let addHelp = HelpFormatter.help(root: root, path: ["add"])
    for section in ["OVERVIEW: Add a thing.", "USAGE: tool add <amount> [--date <date>] [--json]", "ARGUMENTS:",
                    "<amount>", "-d, --date <date>", "The day."] {
        #expect(addHelp.contains(section), "missing \(section)")
    }
    #expect(!addHelp.contains("--version"))
}

@Test func usageErrorReportHasThreeLines() {
    let report = UsageError("Unknown option '-3'", path: ["add"]).report(root: root)
    #expect(report == """
        Error: Unknown option '-3'
        Usage: tool add <amount> [--date <date>] [--json]
        See 'tool add --help' for more information.

        """)
}

@Test func exitCodesAreStable() {
    #expect(ExitCode.generic.map(\.rawValue) == [0, 1, 64, 65, 69, 74, 75, 76, 77])
}
