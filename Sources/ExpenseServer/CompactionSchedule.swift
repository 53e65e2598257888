/// When `expensed serve --compact-after N` compacts (Protocol.md §5.9): once at start, before the first
/// connection is served, then every ``interval`` seconds of the monotonic clock, each time removing what
/// changed more than `keepDays` days before the wall clock of that run.
///
/// A state machine without clocks or timers: the daemon's timer reports each wake-up with both clocks and
/// gets back whether to compact and when to wake next, so the cadence is tested as a transcript.
/// - Important: A wake-up long after the due time (a suspended machine) compacts once and counts the next
///   interval from then: missed runs are not caught up one after another, since one run removes all of it.
package struct CompactionSchedule: Sendable, Equatable {
    /// What a wake-up asks for.
    package struct Step: Sendable, Equatable {
        /// Compact every open ledger, removing tombstones and history entries made before this wall-clock
        /// second (seconds since 1970); `nil`: not yet due (an early or spurious wake-up).
        package var cutoff: Int64?
        /// The monotonic second of the next wake-up.
        package var wakeAt: Int64

        package init(cutoff: Int64?, wakeAt: Int64) {
            self.cutoff = cutoff
            self.wakeAt = wakeAt
        }
    }

    /// Days of tombstones and history kept (`--compact-after`).
    package let keepDays: Int
    /// Seconds between runs: a day.
    package let interval: Int64
    /// The monotonic second the next run is due; `nil` before the start run.
    package private(set) var due: Int64?

    package init(keepDays: Int, interval: Int64 = 86_400) {
        precondition(keepDays >= 0 && interval > 0, "keepDays ≥ 0 and a positive interval")
        self.keepDays = keepDays
        self.interval = interval
    }

    /// The timer woke (or the daemon started) at monotonic second `uptime`, wall-clock second `now`.
    package mutating func wake(uptime: Int64, now: Int64) -> Step {
        if let due, uptime < due { return Step(cutoff: nil, wakeAt: due) }
        let next = uptime + interval
        due = next
        return Step(cutoff: LedgerDirectory.cutoff(keepDays: keepDays, now: now), wakeAt: next)
    }
}
