import CommandLineKit
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import FoundationEssentials

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
        // Only this ledger: no other is opened, and a fresh directory does not also get `default`.
        return reporting {
            let token = try ExpensedCLI.postgresOption(command).map {
                try PostgresLedgerDirectory.addLedger(conninfo: $0, name: name, currency: currency)
            } ?? LedgerDirectory.addLedger(dataDirectory: ExpensedCLI.dataDirectory(command[ExpensedOptions.data]), name: name,
                                           currency: currency)
            ExpensedCLI.printOut(token + "\n")
        }
    }

    static func ledgerList(_ command: ParsedCommand) async -> ExitCode {
        // Names and currencies only, no ledger opened as a ledger; a mistyped `--data` is an error, not a new
        // directory. With --names no file is opened at all; the text form prints each line as it is read.
        reporting {
            let json = command[ExpensedOptions.json], namesOnly = command[ExpensedOptions.names]
            if let conninfo = ExpensedCLI.postgresOption(command) {
                return printLedgers(try PostgresLedgerDirectory.ledgers(conninfo: conninfo), json: json, namesOnly: namesOnly)
            }
            let directory = ExpensedCLI.dataDirectory(command[ExpensedOptions.data])
            if namesOnly {
                let names = try LedgerDirectory.ledgerNames(dataDirectory: directory)
                ExpensedCLI.printOut(json ? JSONWriter.prettyText(.array(names.map { .object(["name": .string($0)]) }))
                                          : names.map { $0 + "\n" }.joined())
            } else if json {
                printLedgers(try LedgerDirectory.ledgers(dataDirectory: directory), json: true, namesOnly: false)
            } else {
                // Written in batches of 256 lines: the first soon, and not one write per ledger.
                var batch = "", lines = 0
                try LedgerDirectory.forEachLedger(dataDirectory: directory) { name, currency in
                    batch += "\(name) \(currency.code)\n"
                    lines += 1
                    if lines % 256 == 0 {
                        ExpensedCLI.printOut(batch)
                        batch = ""
                    }
                }
                ExpensedCLI.printOut(batch)
            }
        }
    }

    /// Runs `body`; a failure is printed as `Error: …` (never a password) and mapped to its exit code.
    private static func reporting(_ body: () throws -> Void) -> ExitCode {
        do {
            try body()
            return .success
        } catch {
            ExpensedCLI.printError("Error: \(error)")
            return DaemonFailure.exitCode(for: error)
        }
    }

    private static func printLedgers(_ ledgers: [(name: String, currency: Currency)], json: Bool, namesOnly: Bool) {
        if json {
            ExpensedCLI.printOut(JSONWriter.prettyText(.array(ledgers.map {
                .object(namesOnly ? ["name": .string($0.name)] : ["name": .string($0.name), "currency": .string($0.currency.code)])
            })))
        } else {
            ExpensedCLI.printOut(ledgers.map { namesOnly ? "\($0.name)\n" : "\($0.name) \($0.currency.code)\n" }.joined())
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
}
