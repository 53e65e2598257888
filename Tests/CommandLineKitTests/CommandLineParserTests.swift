@testable import CommandLineKit
import Testing

private let root = CommandSpec(
    name: "tool", abstract: "A test tool.",
    subcommands: [
        CommandSpec(name: "add", abstract: "Add a thing.",
                    arguments: [ArgumentSpec("amount", help: "How much."), ArgumentSpec("category", help: "What.")],
                    options: [.option("date", value: "date", help: "The day."), .flag("json", help: "JSON.")]),
        CommandSpec(name: "list", abstract: "List things.", arguments: [ArgumentSpec("filter", help: "F.", optional: true)]),
        CommandSpec(name: "config", abstract: "Configure.", subcommands: [
            CommandSpec(name: "set", abstract: "Set a key.",
                        arguments: [ArgumentSpec("key", help: "K."), ArgumentSpec("value", help: "V.")]),
        ]),
    ])

private func run(_ arguments: [String]) throws -> ParsedCommand {
    guard case .run(let command) = try CommandLineParser.parse(arguments, root: root) else {
        Issue.record("expected a command to run")
        return ParsedCommand(path: [])
    }
    return command
}

@Test func positionalsAndOptionsInBothSpellings() throws {
    let spaced = try run(["add", "12.50", "food", "--date", "2026-01-02", "--json"])
    #expect(spaced == ParsedCommand(path: ["add"], arguments: ["amount": "12.50", "category": "food"],
                                    options: ["date": "2026-01-02"], flags: ["json"]))
    let joined = try run(["add", "--date=2026-01-02", "12.50", "food"])
    #expect(joined.options["date"] == "2026-01-02")
    #expect(joined.arguments["amount"] == "12.50")
    #expect(try run(["add", "1", "f", "--date="]).options["date"] == "")
}

@Test func doubleDashEndsOptions() throws {
    let command = try run(["add", "--", "-3", "food"])
    #expect(command.arguments["amount"] == "-3")
    #expect(command.arguments["category"] == "food")
    #expect(try run(["add", "1", "--", "--json"]).arguments["category"] == "--json")
}

@Test(arguments: [
    (["add", "-3", "food"], "Unknown option '-3'"),
    (["add", "--nope", "1", "f"], "Unknown option '--nope'"),
    (["add", "1"], "Missing expected argument '<category>'"),
    (["add", "1", "f", "extra"], "Unexpected argument 'extra'"),
    (["add", "1", "f", "--date"], "Missing value for '--date <date>'"),
    (["add", "1", "f", "--json=yes"], "The flag '--json' does not take a value"),
    (["frobnicate"], "Unknown subcommand 'frobnicate'"),
    (["config", "nope"], "Unknown subcommand 'nope'"),
    (["help", "nope"], "Unknown subcommand 'nope'"),
])
func usageErrors(arguments: [String], message: String) {
    #expect(throws: UsageError.self) { try CommandLineParser.parse(arguments, root: root) }
    do {
        _ = try CommandLineParser.parse(arguments, root: root)
    } catch {
        #expect(error.message == message)
    }
}

@Test(arguments: [
    (["--help"], [String]()), (["-h"], []), (["help"], []), ([], []),
    (["add", "--help"], ["add"]), (["add", "1", "-h"], ["add"]), (["help", "add"], ["add"]),
    (["config"], ["config"]), (["help", "config", "set"], ["config", "set"]), (["config", "set", "--help"], ["config", "set"]),
])
func helpRequests(arguments: [String], path: [String]) throws {
    #expect(try CommandLineParser.parse(arguments, root: root) == .help(path: path))
}

@Test func versionOnlyAtTheRoot() throws {
    #expect(try CommandLineParser.parse(["--version"], root: root) == .version)
    #expect(throws: UsageError.self) { try CommandLineParser.parse(["add", "--version"], root: root) }
}

@Test func nestedSubcommandsAndOptionalArguments() throws {
    #expect(try run(["config", "set", "currency", "EUR"]) ==
        ParsedCommand(path: ["config", "set"], arguments: ["key": "currency", "value": "EUR"]))
    #expect(try run(["list"]).arguments.isEmpty)
    #expect(try run(["list", "-"]).arguments["filter"] == "-")
}

@Test func lastOccurrenceOfAnOptionWins() throws {
    #expect(try run(["add", "1", "f", "--date", "a", "--date", "b"]).options["date"] == "b")
}

@Test func aVariadicLastArgumentTakesEveryRemainingWord() throws {
    let spec = CommandSpec(name: "tool", abstract: "A test tool.", subcommands: [
        CommandSpec(name: "drop", abstract: "Drop things.",
                    arguments: [ArgumentSpec("id", help: "Ids.", optional: true, variadic: true)],
                    options: [.flag("all", help: "All.")]),
    ])
    guard case .run(let many) = try CommandLineParser.parse(["drop", "a1", "--all", "b2", "--", "-c3"], root: spec) else {
        Issue.record("expected a command to run")
        return
    }
    #expect(many.words(Argument("id", help: "")) == ["a1", "b2", "-c3"] && many.arguments["id"] == "a1" && many.flags.contains("all"))
    guard case .run(let none) = try CommandLineParser.parse(["drop", "--all"], root: spec) else {
        Issue.record("expected a command to run")
        return
    }
    #expect(none.words(Argument("id", help: "")) == [])
    #expect(HelpFormatter.usage(root: spec, path: ["drop"]) == "tool drop [<id> ...] [--all]")
    // Not variadic: an extra word is still an error.
    #expect(throws: UsageError.self) { try CommandLineParser.parse(["list", "a", "b"], root: root) }
}
