import CommandLineKit
import ExpenseServer

extension ExpensedRunner {
    /// `expensed compact --ledger NAME --keep-days N [--data DIR | --postgres CONNINFO]`.
    static func compact(_ command: ParsedCommand) throws(UsageError) -> ExitCode {
        guard let text = command.option("keep-days"), let days = Int(text), (0...36_500).contains(days) else {
            throw UsageError("Invalid value for '--keep-days': expected an integer from 0 to 36500", path: command.path)
        }
        do {
            let ledger = command.option("ledger") ?? ""
            let report = try ExpensedCLI.postgresOption(command).map { try PostgresLedgerDirectory.compact(conninfo: $0, ledger: ledger, keepDays: days) }
                ?? LedgerDirectory.compact(dataDirectory: ExpensedCLI.dataDirectory(command.option("data")), ledger: ledger, keepDays: days)
            ExpensedCLI.printOut("horizon \(report.horizon), removed \(report.tombstones) tombstones and \(report.entries) history entries\n")
            return .success
        } catch {
            ExpensedCLI.printError("Error: \(error)")
            return DaemonFailure.exitCode(for: error)
        }
    }
}
