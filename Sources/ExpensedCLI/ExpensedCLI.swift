import CommandLineKit
import ExpenseCore
import ExpenseServer
import FoundationEssentials
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// The `expensed` program: parses the command line and dispatches to the run function of `serve` (the default),
/// `ledger add|list`, `token add|list|revoke`, `backup`, `restore`, `tls init`, `compact` and `migrate`. The command
/// tree, its parsing and its help come from ``ExpensedCommands`` through CommandLineKit, as for `expense`.
package enum ExpensedCLI {
    /// Runs `expensed` with `arguments` (without the program name) and returns the process exit code.
    package static func main(arguments: [String]) async -> Int32 {
        let root = ExpensedCommands.root
        let outcome: ParseOutcome
        do {
            outcome = try CommandLineParser.parse(arguments, root: root)
        } catch {
            printError(error.report(root: root))
            return ExitCode.usage.rawValue
        }
        switch outcome {
        case .version:
            printOut("expensed \(ServerConfiguration.version)\n")
            return ExitCode.success.rawValue
        case .help(let path):
            printOut(HelpFormatter.help(root: root, path: path, footer: ExpensedCommands.footer))
            return ExitCode.success.rawValue
        case .run(let command):
            do {
                return try await run(command).rawValue
            } catch {
                printError(error.report(root: root))
                return ExitCode.usage.rawValue
            }
        }
    }

    private static func run(_ command: ParsedCommand) async throws(UsageError) -> ExitCode {
        switch command.path {
        case ["serve"]: return try await ServeCommand(command: command).run()
        case ["ledger", "add"]: return try await ExpensedRunner.ledgerAdd(command)
        case ["ledger", "list"]: return await ExpensedRunner.ledgerList(command)
        case ["token", "add"]: return try TokenCommand.add(command)
        case ["token", "list"]: return try TokenCommand.list(command)
        case ["token", "revoke"]: return TokenCommand.revoke(command)
        case ["backup"]: return ExpensedRunner.backup(command)
        case ["restore"]: return ExpensedRunner.restore(command)
        case ["tls", "init"]: return TLSInitCommand.run(command)
        case ["compact"]: return try ExpensedRunner.compact(command)
        case ["migrate"]: return try ExpensedRunner.migrate(command)
        case [ExpensedCommands.completion.name]:
            printOut(try CompletionScript.script(for: command, root: ExpensedCommands.root))
            return .success
        case [ExpensedCommands.manual.name]:
            printOut(ExpensedCommands.manualPage(version: ServerConfiguration.version).render(root: ExpensedCommands.root))
            return .success
        default: throw UsageError("Unknown command", path: command.path)
        }
    }

    // MARK: - Shared helpers

    /// `--postgres`, else `$EXPENSED_POSTGRES`; `nil` for a data directory.
    static func postgresOption(_ command: ParsedCommand) -> String? {
        if let option = command[ExpensedOptions.postgres], !option.isEmpty { return option }
        let environment = ProcessInfo.processInfo.environment["EXPENSED_POSTGRES"]
        return environment?.isEmpty == false ? environment : nil
    }

    /// `--data`, else `$EXPENSED_DATA`, else `~/.local/share/expensed`.
    static func dataDirectory(_ option: String?) -> String {
        if let option, !option.isEmpty { return option }
        let environment = ProcessInfo.processInfo.environment
        if let data = environment["EXPENSED_DATA"], !data.isEmpty { return data }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.local/share/expensed"
    }

    /// `--currency`, else USD.
    /// - Throws: ``UsageError`` for a code that is not an active ISO 4217 currency.
    static func currencyOption(_ command: ParsedCommand) throws(UsageError) -> Currency {
        try command.choice(ExpensedOptions.currency) ?? .usd
    }

    /// Prints `error` as `Error: …` and returns its exit code.
    static func fail(_ error: any Error) -> ExitCode {
        printError("Error: \(error)")
        return DaemonFailure.exitCode(for: error)
    }

    /// Writes `text` to standard output, unbuffered (one `write` for the whole text).
    static func printOut(_ text: String) { writeAll(1, text) }

    /// Writes a message to standard error, adding the final newline if missing.
    static func printError(_ message: String) { writeAll(2, message.hasSuffix("\n") ? message : message + "\n") }

    /// Best effort: a daemon whose standard output or error is gone has nowhere to report that.
    private static func writeAll(_ descriptor: Int32, _ text: String) {
        try? SystemKit.writeAll(descriptor, text.utf8)
    }
}
