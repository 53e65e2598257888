import TestSupport
import Foundation
import Testing

/// Help as people expect it from git and swift-argument-parser: `help help`, a guess for a misspelt subcommand,
/// usage lines that show what is required and which options exclude each other.
@Suite struct ExpenseHelpTests {
    @Test func helpHelpExits0() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            for executable in [ExpenseProcess.executable, ExpenseProcess.daemonExecutable] {
                let result = try scratch.run(["help", "help"], executable: executable)
                #expect(result.status == 0, "\(result)")
                #expect(result.stdout.hasPrefix("OVERVIEW: Show help information for a subcommand."))
            }
        }
    }

    @Test func misspeltSubcommandGetsAGuess() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let result = try expense.run(["lst"])
            #expect(result.status == 64 && result.stdout == "")
            #expect(result.stderr.hasPrefix("Error: Unknown subcommand 'lst'; did you mean 'list'?\n"), "\(result)")
            let daemon = try expense.run(["ledger", "lst"], executable: ExpenseProcess.daemonExecutable)
            #expect(daemon.stderr.hasPrefix("Error: Unknown subcommand 'lst'; did you mean 'list'?\n"), "\(daemon)")
        }
    }

    @Test(arguments: [
        (["remote", "set"], "USAGE: expense remote set <server> --ledger <name> [--ca <file>] [--pin <sha256:hex>] [--trust-first] [--insecure-plaintext] (--token-file <file> | --token <token>)\n"),
        (["resolve"], "USAGE: expense resolve <id> (--mine | --theirs | --edit) [--amount <amount>]"),
    ])
    func usageShowsRequiredAndExclusiveOptions(path: [String], usage: String) async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let result = try expense.run(path + ["--help"])
            #expect(result.status == 0)
            #expect(result.stdout.contains(usage), "\(result)")
        }
    }

    @Test func exclusiveOptionsAreCheckedBeforeAnythingOpens() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let both = try expense.run(["resolve", "abcd", "--mine", "--theirs"])
            #expect(both.status == 64)
            #expect(both.stderr.hasPrefix("Error: Give exactly one of --mine, --theirs, --edit\n"), "\(both)")
            let none = try expense.run(["remote", "set", "127.0.0.1:1", "--ledger", "x"])
            #expect(none.status == 64)
            #expect(none.stderr.hasPrefix("Error: Give exactly one of --token-file, --token\n"), "\(none)")
            let noLedger = try expense.run(["remote", "set", "127.0.0.1:1", "--token", "t"])
            #expect(noLedger.stderr.hasPrefix("Error: Missing expected argument '--ledger <name>'\n"), "\(noLedger)")
            #expect(!FileManager.default.fileExists(atPath: expense.home))
        }
    }
}

/// `completion` and `man` are ordinary subcommands: help, usage errors, nothing opened.
@Suite struct ToolCommandTests {
    @Test(arguments: [ExpenseProcess.executable, ExpenseProcess.daemonExecutable])
    func completionAndManBehaveLikeOtherCommands(executable: String) async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let name = URL(fileURLWithPath: executable).lastPathComponent
            for path in [["completion"], ["man"]] {
                let help = try scratch.run(path + ["--help"], executable: executable)
                #expect(help.status == 0 && help.stdout.hasPrefix("OVERVIEW: "), "\(help)")
            }
            let unknown = try scratch.run(["completion", "tcsh"], executable: executable)
            #expect(unknown.status == 64 && unknown.stdout == "")
            #expect(unknown.stderr.hasPrefix("Error: Unknown shell 'tcsh'; give bash, zsh or fish\nUsage: \(name) completion <shell>\n"),
                    "\(unknown)")
            let missing = try scratch.run(["completion"], executable: executable)
            #expect(missing.status == 64 && missing.stderr.hasPrefix("Error: Missing expected argument '<shell>'"), "\(missing)")
            for shell in ["bash", "zsh", "fish"] {
                let script = try scratch.run(["completion", shell], executable: executable)
                #expect(script.status == 0 && script.stderr == "" && script.stdout.contains(name), "\(shell): \(script)")
            }
            let page = try scratch.run(["man"], executable: executable)
            #expect(page.status == 0 && page.stdout.contains(".TH \(name.uppercased()) "))
            #expect(!FileManager.default.fileExists(atPath: scratch.home))
        }
    }
}
