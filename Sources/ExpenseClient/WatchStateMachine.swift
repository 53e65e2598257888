/// `expense sync --watch` as a state machine (after postgres-nio's `ConnectionStateMachine`): each input (a
/// connection made or failed, a sync round done, a wait or a ping over, a backoff timer, stop) returns the action
/// the driver performs next (connect to an address, sync, wait for a `changed` notification, ping, sleep, exit).
/// It does no I/O and reads no clock: the driver passes `now`, so tests run it as transcripts without sockets.
///
/// - A connection is tried at the current address of the list; a failure moves on to the next address at once,
///   until every address of the pass has failed; then it backs off (``initialBackoff`` doubled per pass, at most
///   ``maximumBackoff``) and starts a new pass. A connection that synced resets the backoff; its failure moves on
///   to the next address (or, with one address, backs off first).
/// - Watching, it waits for a notification at most ``pollInterval`` (local changes go out within it) and pings
///   after ``pingInterval`` without activity (keeps the connection under `expensed --idle-timeout`, finds a dead
///   one, catches up should a notification be missed).
package struct WatchStateMachine: Sendable {
    package typealias Instant = ContinuousClock.Instant

    package enum State: Hashable, Sendable {
        /// Not started.
        case initial
        /// Connecting to `address` and saying `hello`, in pass `attempt` since the last connection that synced.
        case connecting(RemoteAddress, attempt: Int)
        /// Connected to `address`; a sync round is running.
        case syncing(RemoteAddress)
        /// Connected and up to date; the last round or ping ended at `lastActivity`.
        case watching(RemoteAddress, lastActivity: Instant)
        /// Every address of pass `attempt` failed; the next pass starts at `until`.
        case backingOff(until: Instant, attempt: Int)
        /// Stopped (a signal): nothing more.
        case stopped
    }

    package enum Action: Hashable, Sendable {
        /// Close any connection, connect to the address and say `hello`; then ``connected(now:)`` or ``failed(now:)``.
        case connect(RemoteAddress)
        /// Run a sync round on the connection (`watch`: then ask `watch`, the first round of a connection);
        /// then ``synced(now:needsRound:)``.
        case sync(watch: Bool)
        /// Wait for a `changed` notification until `until`; then ``waited(now:needsRound:)``.
        case waitForChange(until: Instant)
        /// Send `ping`; then ``pinged(now:needsRound:)``.
        case ping
        /// Close any connection and sleep until `until`; then ``timerFired(now:)``.
        case sleep(until: Instant)
        /// Close any connection and end.
        case exit
    }

    package private(set) var state: State = .initial
    /// The addresses of the remote and the current one.
    package private(set) var rotation: AddressRotation
    /// How long a connection stays quiet before a `ping`.
    package let pingInterval: Duration
    /// The longest wait for a notification before local changes are looked at again.
    package let pollInterval: Duration
    package let initialBackoff: Duration
    package let maximumBackoff: Duration
    /// The backoff before the next pass.
    package private(set) var backoff: Duration
    /// Addresses tried in the current pass.
    private var tried = 0

    package init(rotation: AddressRotation, pingInterval: Duration = .seconds(15), pollInterval: Duration = .seconds(1),
                 initialBackoff: Duration = .milliseconds(200), maximumBackoff: Duration = .seconds(5)) {
        self.rotation = rotation
        self.pingInterval = pingInterval
        self.pollInterval = pollInterval
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        backoff = initialBackoff
    }

    /// Starts with the current address.
    package mutating func start(now: Instant) -> Action {
        guard case .initial = state else { preconditionFailure("start in \(state)") }
        return connect(attempt: 1)
    }

    /// The connection and `hello` succeeded.
    package mutating func connected(now: Instant) -> Action {
        guard case .connecting(let address, _) = state else { preconditionFailure("connected in \(state)") }
        state = .syncing(address)
        return .sync(watch: true)
    }

    /// A sync round ended; `needsRound`: the daemon is ahead of the pull cursor or local changes wait.
    package mutating func synced(now: Instant, needsRound: Bool) -> Action {
        guard case .syncing(let address) = state else { preconditionFailure("synced in \(state)") }
        backoff = initialBackoff
        if needsRound { return .sync(watch: false) }
        state = .watching(address, lastActivity: now)
        return .waitForChange(until: min(now + pollInterval, now + pingInterval))
    }

    /// A wait for a notification ended (one came, or the time was up).
    package mutating func waited(now: Instant, needsRound: Bool) -> Action {
        guard case .watching(let address, let lastActivity) = state else { preconditionFailure("waited in \(state)") }
        if needsRound {
            state = .syncing(address)
            return .sync(watch: false)
        }
        let pingDue = lastActivity + pingInterval
        if now >= pingDue { return .ping }
        return .waitForChange(until: min(now + pollInterval, pingDue))
    }

    /// A `ping` was answered.
    package mutating func pinged(now: Instant, needsRound: Bool) -> Action {
        guard case .watching(let address, _) = state else { preconditionFailure("pinged in \(state)") }
        state = .watching(address, lastActivity: now)
        return waited(now: now, needsRound: needsRound)
    }

    /// Connecting, a round, a wait or a ping failed in a way another address may not (``SyncError/movesOn``).
    package mutating func failed(now: Instant) -> Action {
        let attempt: Int
        switch state {
        case .connecting(_, let pass):
            attempt = pass
        case .syncing, .watching:
            // A connection that worked broke: this address counts as tried in a new pass.
            tried = 1
            attempt = 1
        case .initial, .backingOff, .stopped:
            preconditionFailure("failed in \(state)")
        }
        rotation.moveOn()
        guard tried >= rotation.order.count else {
            tried += 1
            state = .connecting(rotation.current, attempt: attempt)
            return .connect(rotation.current)
        }
        let until = now + backoff
        state = .backingOff(until: until, attempt: attempt)
        backoff = min(backoff * 2, maximumBackoff)
        return .sleep(until: until)
    }

    /// The backoff is over: a new pass.
    package mutating func timerFired(now: Instant) -> Action {
        guard case .backingOff(_, let attempt) = state else { preconditionFailure("timerFired in \(state)") }
        return connect(attempt: attempt + 1)
    }

    /// Stop (SIGINT, SIGTERM): from any state.
    package mutating func stop() -> Action {
        state = .stopped
        return .exit
    }

    private mutating func connect(attempt: Int) -> Action {
        tried = 1
        state = .connecting(rotation.current, attempt: attempt)
        return .connect(rotation.current)
    }
}
