import CommandLineKit
import Testing

private let root = CommandSpec(
    name: "tool", abstract: "A test tool.",
    subcommands: [
        CommandSpec(name: "add", abstract: "Add a thing.", arguments: [ArgumentSpec("amount", help: "How much.")]),
        CommandSpec(name: "list", abstract: "List things."),
        CommandSpec(name: "config", abstract: "Configure.", subcommands: [
            CommandSpec(name: "set", abstract: "Set a key.", arguments: [ArgumentSpec("key", help: "K.")]),
            CommandSpec(name: "get", abstract: "Get a key."),
        ]),
    ])

private func message(_ arguments: [String]) -> String? {
    do {
        _ = try CommandLineParser.parse(arguments, root: root)
        return nil
    } catch {
        return error.message
    }
}

/// `tool help help` describes the help command itself, as git and swift-argument-parser do.
@Test func helpHelpDescribesHelp() throws {
    #expect(try CommandLineParser.parse(["help", "help"], root: root) == .help(path: ["help"]))
    let text = HelpFormatter.help(root: root, path: ["help"])
    #expect(text.hasPrefix("OVERVIEW: Show help information for a subcommand."))
    #expect(text.contains("USAGE: tool help [<subcommand> ...]"))
}

/// A misspelt subcommand names the nearest one; a word close to none gets no guess.
@Test(arguments: [
    (["lst"], "Unknown subcommand 'lst'; did you mean 'list'?"),
    (["ad"], "Unknown subcommand 'ad'; did you mean 'add'?"),
    (["lisst"], "Unknown subcommand 'lisst'; did you mean 'list'?"),
    (["LIST"], "Unknown subcommand 'LIST'; did you mean 'list'?"),
    (["cofnig"], "Unknown subcommand 'cofnig'; did you mean 'config'?"),
    (["config", "sett"], "Unknown subcommand 'sett'; did you mean 'set'?"),
    (["help", "lsit"], "Unknown subcommand 'lsit'; did you mean 'list'?"),
    (["frobnicate"], "Unknown subcommand 'frobnicate'"),
    (["x"], "Unknown subcommand 'x'"),
])
func unknownSubcommandSuggestsTheNearest(arguments: [String], expected: String) {
    #expect(message(arguments) == expected)
}
