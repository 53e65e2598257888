import Dispatch
import ExpenseCore
import ExpenseTransport
import FoundationEssentials
import Synchronization

/// The ledgers a directory (``LedgerDirectory``, ``PostgresLedgerDirectory``) has open, by name: each opened when
/// a request first names it, and closed again when it has been unused for ``Limits/idle`` or when more than
/// ``Limits/maximum`` are open (the least recently used first).
///
/// A ledger is *in use*, and never closed, while a `hello` is being checked against it (``pin(_:_:)``) or a
/// connection holds one of its tokens (its ``LedgerAccess`` counts the credentials it gave out: a connection's
/// requests, pushes and watch all come with one). A ledger closed here commits what is queued first
/// (``Ledger/close()``); opening the same name again waits until that close has ended, so a file never has two
/// writers in this process.
final class OpenLedgers: Sendable {
    /// When open ledgers are closed.
    struct Limits: Sendable, Equatable {
        /// Unused this long: closed (`nil`: never for being idle).
        var idle: Duration?
        /// More open than this: the least recently used unused ones are closed (`nil`: no bound).
        var maximum: Int?

        /// Nothing is ever closed (tools and tests that open a directory in-process).
        static let none = Limits(idle: nil, maximum: nil)
    }

    private struct Entry {
        let ledger: Ledger
        /// `hello`s being checked against it.
        var pins = 0
        /// When it was last pinned, or first seen unused since then.
        var lastUsed: ContinuousClock.Instant
        var unused = false
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Ledgers being closed, by name: opening the name again waits for them (``waitUntilClosed(_:)``).
        var closing: [String: DispatchGroup] = [:]
        var limits = Limits.none
        /// Told of each ledger closed here.
        var log = ServerLog.none
    }

    private let state = Mutex(State())
    /// Whether the sweep of ``closeUnused(every:)`` runs.
    private let sweeping = Mutex(false)

    var limits: Limits {
        get { state.withLock { $0.limits } }
        set { state.withLock { $0.limits = newValue } }
    }

    /// Where each ledger closed for being unused is told (`closed ledger 'NAME' (unused)`).
    func log(to log: ServerLog) { state.withLock { $0.log = log } }

    subscript(name: String) -> Ledger? { state.withLock { $0.entries[name]?.ledger } }

    var all: [Ledger] { state.withLock { $0.entries.values.map(\.ledger) } }

    var isEmpty: Bool { state.withLock { $0.entries.isEmpty } }

    /// Keeps `ledger` as `name`'s, unless another caller opened the name first: the ledger kept is returned (the
    /// other is closed). Past ``Limits/maximum``, unused ledgers are closed (``closeUnused(now:closed:)``).
    /// With `pinned`, the ledger kept is pinned in the same step (``pin(_:_:)``), so it cannot be closed before
    /// the opener uses it.
    func insert(_ ledger: Ledger, as name: String, pinned: Bool = false, now: ContinuousClock.Instant = .now) -> Ledger {
        let (kept, overfull) = state.withLock { state -> (Ledger, Bool) in
            if state.entries[name] == nil { state.entries[name] = Entry(ledger: ledger, lastUsed: now) }
            if pinned {
                state.entries[name]?.pins += 1
                state.entries[name]?.unused = false
            }
            let kept = state.entries[name]?.ledger ?? ledger
            return (kept, kept === ledger && state.limits.maximum.map { state.entries.count > $0 } ?? false)
        }
        if kept !== ledger { Task { await ledger.close() } }
        if overfull { closeUnused(now: now) }
        return kept
    }

    /// Marks `ledger` in use while a `hello` is checked against it; `false` when it was closed meanwhile (look it
    /// up again). Each `true` is followed by one ``unpin(_:)``.
    func pin(_ name: String, _ ledger: Ledger, now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            guard state.entries[name]?.ledger === ledger else { return false }
            state.entries[name]?.pins += 1
            state.entries[name]?.lastUsed = now
            state.entries[name]?.unused = false
            return true
        }
    }

    func unpin(_ name: String, now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            state.entries[name]?.pins -= 1
            state.entries[name]?.lastUsed = now
        }
    }

    /// Waits (off the network loop) until a close of `name` in progress has ended.
    func waitUntilClosed(_ name: String) {
        LoopThread.assertNotCurrent()
        state.withLock { $0.closing[name] }?.wait()
    }

    /// Closes the ledgers the limits say to close at `now`: every one unused for ``Limits/idle``, then the least
    /// recently used unused ones while more than ``Limits/maximum`` are open. Returns their names; each is closed
    /// on its own thread (what it has queued is committed first), and `closed` runs once all have.
    @discardableResult
    func closeUnused(now: ContinuousClock.Instant = .now, closed: @escaping @Sendable () -> Void = {}) -> [String] {
        let (names, ledgers, group, log) = state.withLock { state -> ([String], [Ledger], DispatchGroup, ServerLog) in
            var chosen: [String] = []
            // First see who is unused now: idleness counts from the moment a ledger is first seen unused.
            for (name, entry) in state.entries where entry.pins == 0 && entry.ledger.access.credentialCount == 0 {
                if !entry.unused {
                    state.entries[name]?.unused = true
                    state.entries[name]?.lastUsed = now
                }
            }
            for (name, entry) in state.entries where entry.pins == 0 && entry.ledger.access.credentialCount != 0 {
                state.entries[name]?.unused = false
                state.entries[name]?.lastUsed = now
            }
            let unused = state.entries.filter { $0.value.unused }.sorted { $0.value.lastUsed < $1.value.lastUsed }
            if let idle = state.limits.idle {
                chosen += unused.filter { now - $0.value.lastUsed >= idle }.map(\.key)
            }
            if let maximum = state.limits.maximum {
                let excess = state.entries.count - chosen.count - maximum
                if excess > 0 { chosen += unused.map(\.key).filter { !chosen.contains($0) }.prefix(excess) }
            }
            let group = DispatchGroup()
            var ledgers: [Ledger] = []
            for name in chosen {
                guard let entry = state.entries.removeValue(forKey: name) else { continue }
                ledgers.append(entry.ledger)
                // Entered before the lock is let go: an opener of the name waits from this moment on.
                group.enter()
                state.closing[name] = group
            }
            return (chosen, ledgers, group, state.log)
        }
        guard !ledgers.isEmpty else {
            closed()
            return []
        }
        for ledger in ledgers {
            log("closed ledger \(DisplayText.quoted(ledger.name)) (unused)")
            Task {
                await ledger.close()
                group.leave()
            }
        }
        group.notify(queue: .global()) {
            self.state.withLock { state in
                for name in names where state.closing[name] === group { state.closing[name] = nil }
            }
            closed()
        }
        return names
    }

    /// How often unused ledgers are looked for: a quarter of `idle`, at most every 30 s.
    static func sweepInterval(idle: Duration) -> Duration { min(max(idle / 4, .milliseconds(10)), .seconds(30)) }

    /// Runs ``closeUnused(now:closed:)`` every `interval` on a Dispatch worker until ``close()``.
    func closeUnused(every interval: Duration) {
        guard sweeping.withLock({ running in defer { running = true }; return !running }) else { return }
        scheduleSweep(after: interval)
    }

    private func scheduleSweep(after interval: Duration) {
        let (seconds, attoseconds) = interval.components
        let delay = Double(seconds) + Double(attoseconds) / 1e18  // seconds of waiting, not money
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self, self.sweeping.withLock({ $0 }) else { return }
            self.closeUnused()
            self.scheduleSweep(after: interval)
        }
    }

    /// Waits until the closes in progress have ended.
    func drain() async {
        let closing = state.withLock { Array($0.closing.values) }
        for group in closing { await Self.wait(group) }
    }

    private static func wait(_ group: DispatchGroup) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            group.notify(queue: .global()) { done.resume() }
        }
    }

    /// Closes every open ledger (the directory is closing), and waits for the closes already in progress.
    func close() async {
        sweeping.withLock { $0 = false }
        let (ledgers, closing) = state.withLock { state in
            defer { state.entries.removeAll() }
            return (state.entries.values.map(\.ledger), Array(state.closing.values))
        }
        for ledger in ledgers { await ledger.close() }
        for group in closing { await Self.wait(group) }
    }
}
