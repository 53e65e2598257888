import Foundation

/// A serial executor with a thread of its own, for one ``Ledger`` actor.
///
/// Why: the cooperative pool has one thread per core (two here). A ledger's SQLite work blocks, above all in
/// the fsync of a commit; on the pool that would stall every connection. On this thread it stalls only the
/// ledger, and pushes that arrive meanwhile queue up and share the next commit (group commit).
///
/// The thread is started on the first job and ends after ``shutdown()`` once its queue is empty; a job that
/// arrives later starts a new one, so a closed ledger never leaves a caller hanging.
final class LedgerExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs`, `threadRunning` and `stopping` are read and written only while holding
    // `condition`'s lock; `name` is immutable.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var nextJob = 0
    private var threadRunning = false
    private var stopping = false
    private let name: String

    init(name: String) { self.name = name }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        if threadRunning {
            condition.signal()
        } else {
            threadRunning = true
            let thread = Thread { [self] in run() }
            thread.name = name
            thread.start()
        }
        condition.unlock()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// Lets the thread end once its queue is empty.
    func shutdown() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while nextJob == jobs.count && !stopping { condition.wait() }
            if nextJob == jobs.count {
                threadRunning = false
                condition.unlock()
                return
            }
            let job = jobs[nextJob]
            nextJob += 1
            if nextJob == jobs.count {  // drained: reuse the storage instead of growing forever
                jobs.removeAll(keepingCapacity: true)
                nextJob = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedSerialExecutor())
        }
    }
}
