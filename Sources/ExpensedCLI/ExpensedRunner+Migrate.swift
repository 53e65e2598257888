import CommandLineKit
import ExpenseServer

extension ExpensedRunner {
    /// `expensed migrate (--from-sqlite DIR --to-postgres CONNINFO | --from-postgres CONNINFO --to-sqlite DIR) [--ledger NAMES]`.
    static func migrate(_ command: ParsedCommand) throws(UsageError) -> ExitCode {
        let value = { (option: TypedOption<String>) in command[option].flatMap { $0.isEmpty ? nil : $0 } }
        let sides: (source: () throws -> any LedgerSnapshotSource, target: () throws -> any LedgerSnapshotTarget)
        switch (value(ExpensedOptions.fromSQLite), value(ExpensedOptions.toPostgres), value(ExpensedOptions.fromPostgres),
                value(ExpensedOptions.toSQLite)) {
        case let (directory?, conninfo?, nil, nil):
            sides = ({ try SQLiteLedgerSnapshots(dataDirectory: directory, locking: true) }, { try PostgresLedgerSnapshots(conninfo: conninfo) })
        case let (nil, nil, conninfo?, directory?):
            sides = ({ try PostgresLedgerSnapshots(conninfo: conninfo) }, { try SQLiteLedgerSnapshots(dataDirectory: directory, locking: false) })
        default:
            throw UsageError("Give either --from-sqlite DIR --to-postgres CONNINFO or --from-postgres CONNINFO --to-sqlite DIR",
                             path: command.path)
        }
        let ledgers = (command[ExpensedOptions.ledger] ?? "").split(separator: ",").map(String.init)
        do {
            let source = try sides.source()
            let target = try sides.target()
            for report in try LedgerMigration.copy(from: source, to: target, ledgers: ledgers) {
                ExpensedCLI.printOut("migrated \(report.ledger): \(report.records) records, head \(report.head), "
                         + "\((report.seconds * 100).rounded() / 100) s\n")
            }
            return .success
        } catch {
            ExpensedCLI.printError("Error: \(error)")
            return DaemonFailure.exitCode(for: error)
        }
    }
}
