import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import SystemKit

/// `expense sync --watch`: what ``SyncWatcher`` (ExpenseClient) tells a person.
extension ExpenseRunner {
    /// `expense sync --watch`: sync, then stay connected; pull on each `changed` and push local changes, moving on
    /// to the next address of the list and reconnecting with backoff. SIGINT or SIGTERM stops it after the step
    /// in progress: exit 0. The loop is ``SyncWatcher``'s (its decisions ``WatchStateMachine``'s); this prints it.
    func watch(_ engine: SyncEngine) throws {
        // Without the handler a signal ends the process at once, as for any other command.
        try? StopSignal.install()
        let ledger = engine.remote.ledger
        try SyncWatcher(engine: engine, pingInterval: pingInterval).run { [self] event in
            switch event {
            case .watching(let address): console.err("watching \(address) ledger \(ledger) (Ctrl-C stops)")
            case .synced(let report): reportLine(report)
            case .tryingNext(let next, let reason): console.err("disconnected (\(reason)); trying \(next)")
            case .reconnecting(let wait, let reason):
                console.err("disconnected (\(reason)); reconnecting in \(SyncConnection.seconds(wait)) s")
            case .stopped: console.err("stopped")
            }
        }
    }

    /// How long a watching connection stays quiet before a `ping` (`EXPENSE_WATCH_PING` seconds; default 15).
    private var pingInterval: Duration {
        .milliseconds(Int64((environment["EXPENSE_WATCH_PING"].flatMap(Double.init).map { max($0, 0.1) } ?? 15) * 1000))
    }

    private func reportLine(_ report: SyncEngine.Report) {
        guard report.pushed + report.pulled + report.newConflicts > 0 else { return }
        if command[ExpenseOptions.json] { return console.out(jsonLine(report)) }
        console.out("pushed \(report.pushed), pulled \(report.pulled), conflicts \(report.newConflicts)\n")
    }
}
