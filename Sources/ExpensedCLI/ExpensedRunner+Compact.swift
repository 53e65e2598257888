import CommandLineKit
import ExpenseServer

extension ExpensedRunner {
    /// `expensed compact --ledger NAME --keep-days N [--data DIR | --postgres CONNINFO]`.
    static func compact(_ command: ParsedCommand) throws(UsageError) -> ExitCode {
        guard let days = try command.choice(ExpensedOptions.keepDays) else {
            throw UsageError("--keep-days is required", path: command.path)  // the parser refuses its absence first
        }
        do {
            let ledger = command[ExpensedOptions.ledger] ?? ""
            let report = try ExpensedCLI.postgresOption(command).map { try PostgresLedgerDirectory.compact(conninfo: $0, ledger: ledger, keepDays: days) }
                ?? LedgerDirectory.compact(dataDirectory: ExpensedCLI.dataDirectory(command[ExpensedOptions.data]), ledger: ledger, keepDays: days)
            ExpensedCLI.printOut("horizon \(report.horizon), purged \(report.tombstones) tombstones and removed \(report.entries) history entries\n")
            return .success
        } catch {
            ExpensedCLI.printError("Error: \(error)")
            return DaemonFailure.exitCode(for: error)
        }
    }
}
