import CommandLineKit
import Testing

/// A daemon-like tree: `serve` is the default subcommand, `backup` has a required option.
private let root = CommandSpec(
    name: "daemon", abstract: "A test daemon.",
    subcommands: [
        CommandSpec(name: "serve", abstract: "Serve.",
                    options: [.option("listen", value: "host:port", help: "Where."), .flag("trust", help: "Trust.")]),
        CommandSpec(name: "backup", abstract: "Back up.",
                    arguments: [ArgumentSpec("file", help: "The file.")],
                    options: [.option("data", value: "dir", help: "Data."),
                              .option("ledger", value: "name", help: "The ledger.", required: true)]),
    ],
    defaultSubcommand: "serve")

@Test(arguments: [
    ([String](), ParsedCommand(path: ["serve"])),
    (["--listen", "h:1"], ParsedCommand(path: ["serve"], options: ["listen": "h:1"])),
    (["--trust", "--listen=h:2"], ParsedCommand(path: ["serve"], options: ["listen": "h:2"], flags: ["trust"])),
    (["serve", "--trust"], ParsedCommand(path: ["serve"], flags: ["trust"])),
    (["--"], ParsedCommand(path: ["serve"])),
])
func defaultSubcommandRunsWhenNoneIsNamed(arguments: [String], expected: ParsedCommand) throws {
    #expect(try CommandLineParser.parse(arguments, root: root) == .run(expected))
}

@Test func helpAndVersionStillConcernTheRoot() throws {
    #expect(try CommandLineParser.parse(["--help"], root: root) == .help(path: []))
    #expect(try CommandLineParser.parse(["-h"], root: root) == .help(path: []))
    #expect(try CommandLineParser.parse(["help"], root: root) == .help(path: []))
    #expect(try CommandLineParser.parse(["--version"], root: root) == .version)
    #expect(try CommandLineParser.parse(["--listen", "h:1", "--help"], root: root) == .help(path: ["serve"]))
}

@Test(arguments: [
    (["frobnicate"], "Unknown subcommand 'frobnicate'", [String]()),
    (["-"], "Unknown subcommand '-'", []),
    (["--nope"], "Unknown option '--nope'", ["serve"]),
    (["--listen"], "Missing value for '--listen <host:port>'", ["serve"]),
    (["backup", "f"], "Missing expected argument '--ledger <name>'", ["backup"]),
    (["backup", "--ledger", "x"], "Missing expected argument '<file>'", ["backup"]),
])
func errorsNameTheCommandTheyConcern(arguments: [String], message: String, path: [String]) {
    #expect(throws: UsageError(message, path: path)) { try CommandLineParser.parse(arguments, root: root) }
}

@Test func requiredOptionIsParsedAndShownWithoutBrackets() throws {
    #expect(try CommandLineParser.parse(["backup", "--ledger", "x", "f"], root: root)
        == .run(ParsedCommand(path: ["backup"], arguments: ["file": "f"], options: ["ledger": "x"])))
    #expect(HelpFormatter.usage(root: root, path: ["backup"]) == "daemon backup <file> [--data <dir>] --ledger <name>")
}

@Test func helpMarksTheDefaultSubcommand() {
    let help = HelpFormatter.help(root: root, path: [])
    #expect(help.contains("  serve (default)  Serve."))
    #expect(help.contains("  backup           Back up."))
    #expect(HelpFormatter.usage(root: root, path: []) == "daemon [<subcommand>]")
}
