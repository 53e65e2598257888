import CommandLineKit
import ExpenseCore
import ExpenseServer
import Foundation
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// The `expensed` program: `serve` (the default), `ledger add|list`, `token add|list|revoke`, `backup`, `restore`. The command tree, its parsing
/// and its help come from ``ExpensedCommands`` through CommandLineKit, as for `expense`.
package enum ExpensedCommand {
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
        case ["ledger", "add"]: return try await ledgerAdd(command)
        case ["ledger", "list"]: return await ledgerList(command)
        case ["token", "add"]: return try TokenCommand.add(command)
        case ["token", "list"]: return try TokenCommand.list(command)
        case ["token", "revoke"]: return TokenCommand.revoke(command)
        case ["backup"]: return backup(command)
        case ["restore"]: return restore(command)
        case ["tls", "init"]: return TLSInitCommand.run(command)
        case ["compact"]: return try compact(command)
        case ["migrate"]: return try migrate(command)
        case [ExpensedCommands.completion.name]:
            printOut(try CompletionScript.script(for: command, root: ExpensedCommands.root))
            return .success
        case [ExpensedCommands.manual.name]:
            printOut(ExpensedCommands.manualPage(version: ServerConfiguration.version).render(root: ExpensedCommands.root))
            return .success
        default: throw UsageError("Unknown command", path: command.path)
        }
    }

    // MARK: - ledger add, ledger list, backup

    private static func ledgerAdd(_ command: ParsedCommand) async throws(UsageError) -> ExitCode {
        let name = command.argument("name") ?? ""
        // Checked before the data directory is opened (which creates `default` in an empty one).
        guard LedgerDirectory.isValid(name: name) else {
            throw UsageError(LedgerError.invalidLedgerName(name).message, path: command.path)
        }
        let currency = try currencyOption(command)
        if let conninfo = postgresOption(command) {
            return withPostgres(conninfo) { printOut(try $0.addLedger(name: name, currency: currency) + "\n") }
        }
        // Only this ledger: a fresh directory does not also get `default`.
        return await withDirectory(command, creating: .directory) { directory in
            printOut(try directory.addLedger(name: name, currency: currency) + "\n")
        }
    }

    private static func ledgerList(_ command: ParsedCommand) async -> ExitCode {
        if let conninfo = postgresOption(command) {
            return withPostgres(conninfo) { try printLedgers($0.ledgers(), json: command.flag("json")) }
        }
        // Creates nothing: a mistyped `--data` is an error, not a new directory with a new ledger.
        return await withDirectory(command, creating: .nothing) { directory in
            try printLedgers(directory.ledgers(), json: command.flag("json"))
        }
    }

    /// Runs `body` with the database's ledgers (no listener): errors are printed, never the password.
    private static func withPostgres(_ conninfo: String, _ body: (PostgresLedgerDirectory) throws -> Void) -> ExitCode {
        do {
            try body(try PostgresLedgerDirectory(conninfo: conninfo, listens: false))
            return .success
        } catch {
            printError("Error: \(error)")
            return DaemonFailure.exitCode(for: error)
        }
    }

    private static func printLedgers(_ ledgers: [(name: String, currency: Currency)], json: Bool) throws {
        do {
            if json {
                struct Item: Encodable { var name: String, currency: String }
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
                let data = try encoder.encode(ledgers.map { Item(name: $0.name, currency: $0.currency.code) })
                // `[]` for none, as `expense list --json` prints it (the encoder would write `[\n\n]`).
                printOut(ledgers.isEmpty ? "[]\n" : String(decoding: data, as: UTF8.self) + "\n")
            } else {
                printOut(ledgers.map { "\($0.name) \($0.currency.code)\n" }.joined())
            }
        }
    }

    private static func backup(_ command: ParsedCommand) -> ExitCode {
        let ledger = command.option("ledger") ?? ""
        let file = command.argument("file") ?? ""
        do {
            if let conninfo = postgresOption(command) {
                try PostgresLedgerBackup.backup(conninfo: conninfo, ledger: ledger, to: file)
                return .success
            }
            try LedgerDirectory.backup(dataDirectory: dataDirectory(command.option("data")), ledger: ledger, to: file)
            return .success
        } catch {
            printError("Error: \(error)")
            return DaemonFailure.exitCode(for: error)
        }
    }

    private static func restore(_ command: ParsedCommand) -> ExitCode {
        let ledger = command.option("ledger") ?? ""
        let file = command.argument("file") ?? ""
        let data = dataDirectory(command.option("data"))
        do {
            let report = try LedgerDirectory.restore(dataDirectory: data, ledger: ledger, from: file)
            var text = "restored ledger '\(ledger)' from \(file): \(report.records) records, head \(report.head), "
                + "new epoch \(UUIDText.lowercased(report.identity.epoch))"
            if let replaced = report.replacedPath { text += "; the replaced database is kept as \(replaced)" }
            printError(text)
            return .success
        } catch {
            printError("Error: \(error)")
            return DaemonFailure.exitCode(for: error)
        }
    }

    // MARK: - Shared helpers

    /// `--data`, else `$EXPENSED_DATA`, else `~/.local/share/expensed`.
    /// `--postgres`, else `$EXPENSED_POSTGRES`; `nil` for a data directory.
    static func postgresOption(_ command: ParsedCommand) -> String? {
        if let option = command.option("postgres"), !option.isEmpty { return option }
        let environment = ProcessInfo.processInfo.environment["EXPENSED_POSTGRES"]
        return environment?.isEmpty == false ? environment : nil
    }

    static func dataDirectory(_ option: String?) -> String {
        if let option, !option.isEmpty { return option }
        let environment = ProcessInfo.processInfo.environment
        if let data = environment["EXPENSED_DATA"], !data.isEmpty { return data }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/expensed"
    }

    /// `--currency`, else USD.
    /// - Throws: ``UsageError`` for a code that is not an active ISO 4217 currency.
    static func currencyOption(_ command: ParsedCommand) throws(UsageError) -> Currency {
        guard let code = command.option("currency") else { return .usd }
        guard let currency = Currency(code: code) else {
            throw UsageError("'\(code)' is not an active ISO 4217 currency code (such as USD or EUR)", path: command.path)
        }
        return currency
    }

    /// Opens the data directory of `command` (creating only what `creating` allows), runs `body`, closes the directory; failures are printed as
    /// `Error: …` and mapped to their exit code.
    private static func withDirectory(_ command: ParsedCommand, creating: LedgerDirectory.Creation,
                                      _ body: (LedgerDirectory) throws -> Void) async -> ExitCode {
        let directory: LedgerDirectory
        do {
            directory = try LedgerDirectory(dataDirectory: dataDirectory(command.option("data")), creating: creating)
        } catch {
            printError("Error: \(error)")
            return DaemonFailure.exitCode(for: error)
        }
        var status = ExitCode.success
        do {
            try body(directory)
        } catch {
            printError("Error: \(error)")
            status = DaemonFailure.exitCode(for: error)
        }
        await directory.close()
        return status
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
