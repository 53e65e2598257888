import ExpenseProtocol
import Foundation
import SystemKit

/// `sync --watch` as a loop: ``WatchStateMachine`` decides, this does the I/O it asks for (connect, sync, wait for
/// a `changed`, ping, sleep) and tells its caller what happened through ``Event``s. The clock, the pause and the
/// stop request are injected, so a caller (the CLI, a test) chooses how time passes and when to stop; the CLI only
/// turns the events into lines (docs/usage.md, "Sync").
package struct SyncWatcher {
    /// What the watcher tells its caller, in order.
    package enum Event: Sendable {
        /// The first sync on a connection is done and `watch` is in place (`address`).
        case watching(address: RemoteAddress)
        /// A sync round ended; its report (the caller prints the rounds that moved something).
        case synced(SyncEngine.Report)
        /// The connection failed (`reason`); the next address of the list is tried at once.
        case tryingNext(RemoteAddress, reason: String)
        /// The connection failed (`reason`, the failure before this pause); reconnecting after `wait`.
        case reconnecting(in: Duration, reason: String)
        /// A stop was requested and the step in progress has ended.
        case stopped
    }

    package var engine: SyncEngine
    package var pingInterval: Duration
    /// The time now (`ContinuousClock.now`; a test may pass its own).
    package var now: @Sendable () -> ContinuousClock.Instant = { .now }
    /// Waits `duration` unless a stop is requested first (``StopSignal/pause(_:)``).
    package var pause: (Duration) -> Void = { StopSignal.pause($0) }
    /// Whether a stop was requested (SIGINT or SIGTERM through ``StopSignal``).
    package var stopRequested: () -> Bool = { StopSignal.requested != nil }

    package init(engine: SyncEngine, pingInterval: Duration) {
        self.engine = engine
        self.pingInterval = pingInterval
    }

    /// Runs until a stop is requested (then returns) or a failure that does not move on is thrown: one address that
    /// serves another ledger, a ``SyncError`` that does not move on (``SyncError/movesOn``: an authentication
    /// refusal, …), or a local store failure.
    package func run(_ tell: (Event) -> Void) throws {
        let rotation = try engine.rotation()
        let oneAddress = rotation.order.count == 1
        var machine = WatchStateMachine(rotation: rotation, pingInterval: pingInterval)
        var connection: SyncConnection?
        defer { connection?.close() }
        var failure = ""
        var action = machine.start(now: now())
        while true {
            if stopRequested(), action != .exit { action = machine.stop() }
            do {
                switch action {
                case .exit:
                    tell(.stopped)
                    return
                case .connect(let address):
                    connection?.close()
                    connection = nil
                    connection = try engine.connect(to: address)
                    action = machine.connected(now: now())
                case .sync(let watch):
                    guard let open = connection else { preconditionFailure("sync without a connection") }
                    var report = SyncEngine.Report()
                    try engine.run(on: open, report: &report)
                    engine.configuration.progress?(.finished)
                    var behind = false
                    if watch {
                        // A change that landed between that sync and `watch` gets no notification: the result tells it.
                        behind = try needsRound(head: open.call(WatchRequest()).cursor, on: open)
                        tell(.watching(address: open.address))
                    }
                    tell(.synced(report))
                    action = machine.synced(now: now(), needsRound: behind)
                case .waitForChange(let until):
                    guard let open = connection else { preconditionFailure("wait without a connection") }
                    let head = try open.waitForChange(timeout: max(now().duration(to: until), .zero))
                    action = machine.waited(now: now(), needsRound: try needsRound(head: head, on: open))
                case .ping:
                    guard let open = connection else { preconditionFailure("ping without a connection") }
                    let head = try open.call(PingRequest()).cursor
                    action = machine.pinged(now: now(), needsRound: try needsRound(head: head, on: open))
                case .sleep(let until):
                    connection?.close()
                    connection = nil
                    let wait = max(now().duration(to: until), .zero)
                    tell(.reconnecting(in: wait, reason: failure))
                    pause(wait)
                    action = machine.timerFired(now: now())
                }
            } catch let error as SyncError {
                engine.configuration.progress?(.finished)
                if error.showsInStatus { try? engine.ledger.recordSyncFailure(error.description) }
                // One address that serves another ledger ends the watch (exit 64), as it ends a sync; in a list
                // that address is passed over, never mixed.
                if case .otherLedger = error, oneAddress { throw error }
                // A full disk behind the daemon is waited out as an outage is.
                let waitedOut = if case .storageFull = error { true } else { false }
                guard error.movesOn || waitedOut else { throw error }
                failure = error.message
                action = machine.failed(now: now())
                if case .connect(let next) = action, !stopRequested() { tell(.tryingNext(next, reason: failure)) }
            }
        }
    }

    /// Whether a round is due: the daemon announced a head past the pull cursor (a `changed` for what was already
    /// pulled, such as this watcher's own push, needs none), or local changes wait that `connection`'s daemon
    /// takes (a change of a kind it does not serve waits for one that does, without a round each turn).
    private func needsRound(head: Int64?, on connection: SyncConnection) throws -> Bool {
        try head.map { $0 > (try engine.ledger.pullCursor()) } ?? false
            || engine.ledger.hasUnsent(kinds: Set(connection.hello.kinds ?? []))
    }
}
