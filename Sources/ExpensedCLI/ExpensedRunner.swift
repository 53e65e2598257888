import CommandLineKit
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import Foundation

/// The run functions of `expensed`'s commands that need no state of their own (`ledger add|list`, `backup`,
/// `restore`; `compact` and `migrate` in `ExpensedRunner+<Command>.swift`). ``ExpensedCLI`` dispatches to them.
enum ExpensedRunner {
    static func ledgerAdd(_ command: ParsedCommand) async throws(UsageError) -> ExitCode {
        let name = command[ExpensedArguments.name] ?? ""
        // Checked before the data directory is opened (which creates `default` in an empty one).
        guard LedgerDirectory.isValid(name: name) else {
            throw UsageError(LedgerError.invalidLedgerName(name).message, path: command.path)
        }
        let currency = try ExpensedCLI.currencyOption(command)
        if let conninfo = ExpensedCLI.postgresOption(command) {
            return withPostgres(conninfo) { ExpensedCLI.printOut(try $0.addLedger(name: name, currency: currency) + "\n") }
        }
        // Only this ledger: a fresh directory does not also get `default`.
        return await withDirectory(command, creating: .directory) { directory in
            ExpensedCLI.printOut(try directory.addLedger(name: name, currency: currency) + "\n")
        }
    }

    static func ledgerList(_ command: ParsedCommand) async -> ExitCode {
        if let conninfo = ExpensedCLI.postgresOption(command) {
            return withPostgres(conninfo) { printLedgers($0.ledgers(), json: command[ExpensedOptions.json]) }
        }
        // Creates nothing: a mistyped `--data` is an error, not a new directory with a new ledger.
        return await withDirectory(command, creating: .nothing) { directory in
            printLedgers(directory.ledgers(), json: command[ExpensedOptions.json])
        }
    }

    /// Runs `body` with the database's ledgers (no listener): errors are printed, never the password.
    private static func withPostgres(_ conninfo: String, _ body: (PostgresLedgerDirectory) throws -> Void) -> ExitCode {
        do {
            try body(try PostgresLedgerDirectory(conninfo: conninfo, listens: false))
            return .success
        } catch {
            ExpensedCLI.printError("Error: \(error)")
            return DaemonFailure.exitCode(for: error)
        }
    }

    private static func printLedgers(_ ledgers: [(name: String, currency: Currency)], json: Bool) {
        if json {
            ExpensedCLI.printOut(JSONWriter.prettyText(.array(ledgers.map {
                .object(["name": .string($0.name), "currency": .string($0.currency.code)])
            })))
        } else {
            ExpensedCLI.printOut(ledgers.map { "\($0.name) \($0.currency.code)\n" }.joined())
        }
    }

    static func backup(_ command: ParsedCommand) -> ExitCode {
        let ledger = command[ExpensedOptions.ledger] ?? ""
        let file = command[ExpensedArguments.file] ?? ""
        do {
            if let conninfo = ExpensedCLI.postgresOption(command) {
                try PostgresLedgerBackup.backup(conninfo: conninfo, ledger: ledger, to: file)
                return .success
            }
            try LedgerDirectory.backup(dataDirectory: ExpensedCLI.dataDirectory(command[ExpensedOptions.data]), ledger: ledger, to: file)
            return .success
        } catch {
            ExpensedCLI.printError("Error: \(error)")
            return DaemonFailure.exitCode(for: error)
        }
    }

    static func restore(_ command: ParsedCommand) -> ExitCode {
        let ledger = command[ExpensedOptions.ledger] ?? ""
        let file = command[ExpensedArguments.file] ?? ""
        let data = ExpensedCLI.dataDirectory(command[ExpensedOptions.data])
        do {
            let report = try LedgerDirectory.restore(dataDirectory: data, ledger: ledger, from: file)
            var text = "restored ledger '\(ledger)' from \(file): \(report.records) records, head \(report.head), "
                + "new epoch \(UUIDText.lowercased(report.identity.epoch))"
            if let replaced = report.replacedPath { text += "; the replaced database is kept as \(replaced)" }
            ExpensedCLI.printError(text)
            return .success
        } catch {
            ExpensedCLI.printError("Error: \(error)")
            return DaemonFailure.exitCode(for: error)
        }
    }

    /// Opens the data directory of `command` (creating only what `creating` allows), runs `body`, closes the directory; failures are printed as
    /// `Error: …` and mapped to their exit code.
    private static func withDirectory(_ command: ParsedCommand, creating: LedgerDirectory.Creation,
                                      _ body: (LedgerDirectory) throws -> Void) async -> ExitCode {
        let directory: LedgerDirectory
        do {
            directory = try LedgerDirectory(dataDirectory: ExpensedCLI.dataDirectory(command[ExpensedOptions.data]), creating: creating)
        } catch {
            ExpensedCLI.printError("Error: \(error)")
            return DaemonFailure.exitCode(for: error)
        }
        var status = ExitCode.success
        do {
            try body(directory)
        } catch {
            ExpensedCLI.printError("Error: \(error)")
            status = DaemonFailure.exitCode(for: error)
        }
        await directory.close()
        return status
    }
}
