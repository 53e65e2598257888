import CommandLineKit
import ExpenseClient
import ExpenseCore

/// Runs one parsed command against the store in `home`.
struct ExpenseRunner {
    let command: ParsedCommand
    let home: ExpenseHome
    let console: Console
    let environment: [String: String]

    func run() throws {
        switch command.path {
        case ["add"]: try add()
        case ["list"]: try list()
        case ["edit"]: try edit()
        case ["delete"]: try delete()
        case ["summary"]: try summary()
        case ["stats"]: try stats()
        case ["report"]: try report()
        case ["export"]: try export()
        case ["import"]: try importFile()
        case ["config", "set"]: try configSet()
        case ["config", "get"]: try configGet()
        case ["remote", "set"]: try remoteSet()
        case ["remote", "show"]: try remoteShow()
        case ["sync"]: try sync()
        case ["status"]: try status()
        case ["conflicts"]: try listConflicts()
        case ["resolve"]: try resolve()
        case ["discard"]: try discard()
        case ["history"]: try history()
        case ["log"]: try activityLog()
        case ["undo"]: try undo()
        case ["balances"]: try balances()
        default:
            // A record kind's commands, from its group (``ExpenseCommands/kindGroups``).
            guard command.path.count == 2, let group = ExpenseCommands.kindGroups.first(where: { $0.spec.name == command.path[0] }),
                  let run = group.runs[command.path[1]] else { throw usage("Unknown command") }
            try run(self)
        }
    }

    /// Opened on demand, so `--help` and usage errors never touch the disk.
    /// - Parameter readOnly: the command only reads (list, export, summary, status, conflicts, config get,
    ///   remote show): a cache the user may read but not write still works.
    func ledger(readOnly: Bool = false) throws -> LocalLedger {
        if let warning = home.modeWarning() { console.err(warning) }
        return LocalLedger(store: try home.openStore(readOnly: readOnly))
    }

    /// A usage error for this command.
    func usage(_ message: String) -> UsageError { UsageError(message, path: command.path) }
}
