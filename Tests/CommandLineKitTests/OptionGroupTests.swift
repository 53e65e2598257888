@testable import CommandLineKit
import Testing

private let root = CommandSpec(
    name: "tool", abstract: "A test tool.",
    subcommands: [
        CommandSpec(name: "resolve", abstract: "Settle.",
                    arguments: [ArgumentSpec("id", help: "Which.")],
                    options: [.flag("mine", help: "Mine."), .flag("theirs", help: "Theirs."),
                              .option("note", value: "text", help: "A note."), .flag("edit", help: "Edit."),
                              .flag("json", help: "JSON."), .flag("csv", help: "CSV.")],
                    exclusiveGroups: [.exactlyOne("mine", "theirs", "edit"), .atMostOne("json", "csv")]),
        CommandSpec(name: "remote", abstract: "Remote.",
                    options: [.option("ledger", value: "name", help: "The ledger.", required: true),
                              .option("token-file", value: "file", help: "File."), .option("token", value: "token", help: "Token.")],
                    exclusiveGroups: [.exactlyOne("token-file", "token")]),
    ])

private func outcome(_ arguments: [String]) -> String {
    do {
        guard case .run(let command) = try CommandLineParser.parse(arguments, root: root) else { return "help" }
        return "run " + command.flags.sorted().joined(separator: ",") + command.options.keys.sorted().joined(separator: ",")
    } catch {
        return error.message
    }
}

@Test func usageShowsGroupsWhereTheirFirstOptionStands() {
    #expect(HelpFormatter.usage(root: root, path: ["resolve"])
            == "tool resolve <id> (--mine | --theirs | --edit) [--note <text>] [--json | --csv]")
    #expect(HelpFormatter.usage(root: root, path: ["remote"])
            == "tool remote --ledger <name> (--token-file <file> | --token <token>)")
}

@Test(arguments: [
    (["resolve", "x", "--theirs"], "run theirs"),
    (["resolve", "x", "--edit", "--note", "n", "--csv"], "run csv,editnote"),
    (["resolve", "x"], "Give exactly one of --mine, --theirs, --edit"),
    (["resolve", "x", "--mine", "--edit"], "Give exactly one of --mine, --theirs, --edit"),
    (["resolve", "x", "--mine", "--json", "--csv"], "Give at most one of --json, --csv"),
    (["resolve", "x", "--mine", "--theirs", "--help"], "help"),
    (["remote", "--token", "t"], "Missing expected argument '--ledger <name>'"),
    (["remote", "--ledger", "l", "--token", "t", "--token-file", "f"], "Give exactly one of --token-file, --token"),
])
func parserEnforcesTheGroups(arguments: [String], expected: String) {
    #expect(outcome(arguments) == expected)
}
