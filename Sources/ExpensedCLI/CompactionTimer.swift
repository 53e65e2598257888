import Dispatch
import ExpenseServer
import Synchronization

/// `expensed serve --compact-after N`: drives ``CompactionSchedule`` with the real clocks. The start run is
/// queued on every ledger's thread in `init`, which the daemon calls before it starts serving, so no request is
/// answered from the uncompacted ledger; each later wake-up is one `asyncAfter` on a queue of its own, as far
/// ahead as the schedule says (never the cooperative pool). Each ledger's compaction runs on its own thread
/// between commits.
final class CompactionTimer: Sendable {
    private let queue = DispatchQueue(label: "expensed.compaction")
    /// Compacts every open ledger, removing what changed before the cutoff (`keepDays` names it in log lines).
    private let compact: @Sendable (_ cutoff: Int64, _ keepDays: Int, _ done: @escaping @Sendable (String) -> Void) -> Void
    private let log: ServerLog
    /// The schedule, and whether ``cancel()`` was called.
    private let state: Mutex<(schedule: CompactionSchedule, cancelled: Bool)>

    convenience init(directory: LedgerDirectory, keepDays: Int, log: ServerLog) {
        self.init(keepDays: keepDays, log: log) { directory.compactLedgers(before: $0, keepDays: $1, done: $2) }
    }

    /// The same for any set of ledgers (``PostgresLedgerDirectory`` too): `compact` compacts every open ledger.
    init(keepDays: Int, log: ServerLog,
         compact: @escaping @Sendable (_ cutoff: Int64, _ keepDays: Int, _ done: @escaping @Sendable (String) -> Void) -> Void) {
        self.compact = compact
        self.log = log
        state = Mutex((CompactionSchedule(keepDays: keepDays), false))
        wake()
    }

    /// No compaction starts after this (one already queued on a ledger's thread still runs).
    func cancel() { state.withLock { $0.cancelled = true } }

    private func wake() {
        let uptime = Int64(DispatchTime.now().uptimeNanoseconds / 1_000_000_000)  // seconds, not money
        let step: CompactionSchedule.Step? = state.withLock { state in
            state.cancelled ? nil : state.schedule.wake(uptime: uptime, now: HistoryAuthor.now())
        }
        guard let step else { return }
        if let cutoff = step.cutoff {
            let keepDays = state.withLock { $0.schedule.keepDays }
            compact(cutoff, keepDays) { [log] in log($0) }
        }
        queue.asyncAfter(deadline: .now() + .seconds(Int(max(step.wakeAt - uptime, 1)))) { [self] in wake() }
    }
}
