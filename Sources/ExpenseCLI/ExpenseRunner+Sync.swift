import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import SystemKit

/// `expense sync`: one round against the daemon and its report (`--watch` is in `ExpenseRunner+Watch.swift`).
extension ExpenseRunner {
    /// `expense sync [--json] [--watch]`.
    func sync() throws {
        // Taken before the cache is opened and held until this command ends (the watcher: until it stops);
        // another sync of this cache exits 75 having touched nothing.
        let syncLock = try SyncLock.acquire(for: home)
        defer { syncLock.release() }
        // A first sync's pull pages: their buffers reused from the heap, not faulted in afresh for every page.
        HeapReturn.keepLargeBuffers()
        let ledger = try ledger()
        // The CLI's clock (`EXPENSE_NOW` for its tests) decides which recurring occurrences are due.
        var engine = SyncEngine(ledger: ledger, remote: try remote(ledger),
                                dependencies: SyncEngine.Dependencies(clock: { [self] in now() }))
        if environment["EXPENSE_SYNC_ATTEMPTS"].flatMap(Int.init) != nil {
            engine.configuration.attempts = environment["EXPENSE_SYNC_ATTEMPTS"].flatMap(Int.init) ?? engine.configuration.attempts
        }
        engine.configuration.log = { [console, verbose = ExpenseCLI.isVerbose(environment)] in if verbose { console.err($0) } }
        engine.configuration.connectTimeout = connectTimeout
        engine.configuration.materialisesRecurring = true  // occurrences due go out with the sync (Protocol.md §10.4)
        // On a terminal only: pipes, files and tests see nothing on standard error but errors.
        if let display = SyncProgressDisplay.forStandardError() { engine.configuration.progress = display.show }
        if command[ExpenseOptions.watch] {
            try watch(engine)
            return
        }
        let report = try engine.sync()
        tell(report.recurring)
        try finish(report)
    }

    /// The `--json` report of one sync round as one line. The keys, their order and their meaning are fixed (docs/usage.md,
    /// "Sync"): each `new…` counts this round, each `open…` what is open after it. `conflicts` (this round) and
    /// `rejected` (open) were removed rather than changed, so a script that reads them fails instead of reading
    /// another count. `sync --watch --json` prints one such line per round that moved something.
    func jsonLine(_ report: SyncEngine.Report) -> String {
        let members: [(String, Int64)] = [
            ("pushed", Int64(report.pushed)), ("pulled", Int64(report.pulled)),
            ("newConflicts", Int64(report.newConflicts)), ("openConflicts", Int64(report.openConflicts)),
            ("newRejections", Int64(report.rejected)), ("openRejections", Int64(report.openRejections)),
            ("pending", Int64(report.pending)), ("cursor", report.cursor),
        ]
        var writer = JSONWriter()
        writer.object { json in
            for (key, value) in members { json.member(key, value) }
        }
        return String(decoding: writer.bytes, as: UTF8.self) + "\n"
    }

    /// Prints the report and fails with 65 (a rejection is queued) or 3 (conflicts remain).
    private func finish(_ report: SyncEngine.Report) throws {
        if command[ExpenseOptions.json] {
            console.out(jsonLine(report))
        } else if report.pushed == 0, report.pulled == 0, report.newConflicts == 0, report.openConflicts == 0, report.openRejections == 0 {
            console.out("up to date\n")
        } else {
            console.out("pushed \(report.pushed), pulled \(report.pulled), conflicts \(report.newConflicts)\n")
        }
        if report.openRejections > 0 {
            let plural = report.openRejections == 1 ? "" : "s"
            var lines = ["Error: \(report.openRejections) change\(plural) rejected and kept; see `expense status`"]
            if report.tooLarge > 0 {
                lines.append("  too_large: \(report.tooLarge) change\(report.tooLarge == 1 ? " does" : "s do") not fit in the daemon's line "
                             + "(expensed --max-line) and \(report.tooLarge == 1 ? "was" : "were") not sent; the others synced")
            }
            if report.openRejections > report.tooLarge {
                lines.append("  the daemon rejected \(report.openRejections - report.tooLarge): edit them to fix them, "
                             + "or drop them with `expense discard --rejected`")
            }
            throw CommandFailure(.dataError, lines: lines)
        }
        if report.openConflicts > 0 {
            throw CommandFailure(.conflictsRemain, "\(report.openConflicts) conflict\(report.openConflicts == 1 ? "" : "s") to resolve; see `expense conflicts`")
        }
    }

    /// The most one attempt waits for the connection and `hello`'s answer (`EXPENSE_CONNECT_TIMEOUT` seconds,
    /// validated by ``ExpenseCLI/environmentProblem(_:)``; default 10).
    var connectTimeout: Duration {
        environment["EXPENSE_CONNECT_TIMEOUT"].flatMap(Double.init) // not money: seconds
            .map { .milliseconds(Int64(($0 * 1000).rounded())) } ?? SyncConnection.defaultConnectTimeout
    }
}
