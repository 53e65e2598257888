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
        case ["budget", "set"]: try budgetSet()
        case ["budget", "list"]: try budgetList()
        case ["budget", "remove"]: try budgetRemove()
        case ["budget", "status"]: try budgetStatus()
        case ["recurring", "add"]: try recurringAdd()
        case ["recurring", "list"]: try recurringList()
        case ["recurring", "remove"]: try recurringRemove()
        case ["recurring", "skip"]: try recurringSkip()
        case ["recurring", "keep-both"]: try recurringKeepBoth()
        case ["recurring", "merge"]: try recurringMerge()
        case ["recurring", "preview"]: try recurringPreview()
        case ["recurring", "run"]: try recurringRun()
        default: throw usage("Unknown command")
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
