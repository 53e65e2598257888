import Dispatch
import ExpenseServer

/// `expensed serve --compact-after N`: compacts every open ledger at start and then every 24 hours, on a
/// Dispatch timer (never the cooperative pool); each ledger's compaction runs on its own thread between commits.
final class CompactionSchedule {
    private let timer: any DispatchSourceTimer

    convenience init(directory: LedgerDirectory, keepDays: Int, log: ServerLog) {
        self.init(keepDays: keepDays, log: log) { directory.compactOpenLedgers(keepDays: $0, done: $1) }
    }

    /// The same for any set of ledgers: `compact` compacts every open ledger, reporting each through its callback.
    init(keepDays: Int, log: ServerLog,
         compact: @escaping @Sendable (_ keepDays: Int, _ done: @escaping @Sendable (String) -> Void) -> Void) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "expensed.compaction"))
        timer.schedule(deadline: .now(), repeating: .seconds(86_400))
        timer.setEventHandler { compact(keepDays) { log($0) } }
        timer.resume()
    }

    func cancel() { timer.cancel() }
}
