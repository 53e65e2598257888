import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import SystemKit

/// `expense sync --watch`: the I/O of ``WatchStateMachine`` and what it tells a person.
extension ExpenseRunner {
    /// `expense sync --watch`: sync, then stay connected; pull on each `changed` and push local changes, moving on
    /// to the next address of the list and reconnecting with backoff. SIGINT or SIGTERM stops it after the step
    /// in progress: exit 0. The decisions are ``WatchStateMachine``'s; this is its I/O and what it tells a person.
    func watch(_ engine: SyncEngine) throws {
        // Without the handler a signal ends the process at once, as for any other command.
        try? StopSignal.install()
        let rotation = try engine.rotation()
        let oneAddress = rotation.order.count == 1
        var machine = WatchStateMachine(rotation: rotation, pingInterval: pingInterval)
        var connection: SyncConnection?
        defer { connection?.close() }
        var failure = ""
        var action = machine.start(now: .now)
        while true {
            if StopSignal.requested != nil, action != .exit { action = machine.stop() }
            do {
                switch action {
                case .exit:
                    console.err("stopped")
                    return
                case .connect(let address):
                    connection?.close()
                    connection = nil
                    connection = try engine.connect(to: address)
                    action = machine.connected(now: .now)
                case .sync(let watch):
                    guard let open = connection else { preconditionFailure("sync without a connection") }
                    var report = SyncEngine.Report()
                    try engine.run(on: open, report: &report)
                    engine.progress?(.finished)
                    var behind = false
                    if watch {
                        // A change that landed between that sync and `watch` gets no notification: the result tells it.
                        behind = try needsRound(engine, head: open.call(WatchRequest()).cursor)
                        console.err("watching \(open.address) ledger \(engine.remote.ledger) (Ctrl-C stops)")
                    }
                    reportLine(report)
                    action = machine.synced(now: .now, needsRound: behind)
                case .waitForChange(let until):
                    guard let open = connection else { preconditionFailure("wait without a connection") }
                    let head = try open.waitForChange(timeout: max(ContinuousClock.now.duration(to: until), .zero))
                    action = machine.waited(now: .now, needsRound: try needsRound(engine, head: head))
                case .ping:
                    guard let open = connection else { preconditionFailure("ping without a connection") }
                    let head = try open.call(PingRequest()).cursor
                    action = machine.pinged(now: .now, needsRound: try needsRound(engine, head: head))
                case .sleep(let until):
                    connection?.close()
                    connection = nil
                    let wait = max(ContinuousClock.now.duration(to: until), .zero)
                    console.err("disconnected (\(failure)); reconnecting in \(SyncConnection.seconds(wait)) s")
                    StopSignal.pause(wait)
                    action = machine.timerFired(now: .now)
                }
            } catch let error as SyncError {
                engine.progress?(.finished)
                if case .protocolError = error { try? engine.ledger.recordSyncFailure(error.description) }
                // One address that serves another ledger ends the watch (exit 64), as it ends a sync; in a list
                // that address is passed over, never mixed.
                if case .otherLedger = error, oneAddress { throw error }
                guard error.movesOn else { throw error }
                failure = error.message
                action = machine.failed(now: .now)
                if case .connect(let next) = action, StopSignal.requested == nil {
                    console.err("disconnected (\(failure)); trying \(next)")
                }
            }
        }
    }

    /// Whether a round is due: the daemon announced a head past the pull cursor (a `changed` for what was already
    /// pulled, such as this watcher's own push, needs none), or local changes wait.
    private func needsRound(_ engine: SyncEngine, head: Int64?) throws -> Bool {
        try head.map { $0 > (try engine.ledger.pullCursor()) } ?? false || engine.ledger.hasUnsent()
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
