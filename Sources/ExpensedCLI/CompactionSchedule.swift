import Dispatch
import ExpenseServer

/// `expensed serve --compact-after N`: compacts every open ledger at start and then every 24 hours, on a
/// Dispatch timer (never the cooperative pool); each ledger's compaction runs on its own thread between commits.
final class CompactionSchedule {
    private let timer: any DispatchSourceTimer

    init(directory: LedgerDirectory, keepDays: Int, log: ServerLog) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "expensed.compaction"))
        timer.schedule(deadline: .now(), repeating: .seconds(86_400))
        timer.setEventHandler { directory.compactOpenLedgers(keepDays: keepDays) { log($0) } }
        timer.resume()
    }

    func cancel() { timer.cancel() }
}
