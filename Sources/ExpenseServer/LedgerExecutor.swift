import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A serial executor with a thread of its own, for one ``Ledger`` actor.
///
/// Why: the cooperative pool has one thread per core (two here). A ledger's SQLite work blocks, above all in
/// the fsync of a commit; on the pool that would stall every connection. On this thread it stalls only the
/// ledger, and pushes that arrive meanwhile queue up and share the next commit (group commit).
///
/// Besides the actor's jobs it runs plain closures (``enqueue(_:)-(()->Void)``), in the same FIFO order: that is
/// how the network loop hands a request to the ledger without creating a `Task` (``Ledger/perform(_:)``).
/// ``checkIsolated()`` confirms to the runtime that such a closure runs on the actor's thread, which is what
/// lets it call `assumeIsolated`.
///
/// The thread is started on the first job and ends after ``shutdown()`` once its queue is empty; a job that
/// arrives later starts a new one, so a closed ledger never leaves a caller hanging.
final class LedgerExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked Sendable: `work`, `nextItem`, `threadRunning`, `stopping` and `thread` are read and written
    // only while holding `condition`'s lock; `name` is immutable.
    private enum Item {
        case job(UnownedJob)
        case closure(@Sendable () -> Void)
    }

    private let condition = NSCondition()
    private var work: [Item] = []
    private var nextItem = 0
    private var threadRunning = false
    private var stopping = false
    /// The thread running the queue now (`nil` between threads).
    private var thread: pthread_t?
    private let name: String
    /// Run on the thread each time it runs out of work (``whenDrained(_:)``).
    private var drained: (@Sendable () -> Void)?

    init(name: String) { self.name = name }

    func enqueue(_ job: consuming ExecutorJob) {
        append(.job(UnownedJob(job)))
    }

    /// Runs `body` on the executor's thread after everything queued before it.
    func enqueue(_ body: @escaping @Sendable () -> Void) {
        append(.closure(body))
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// Called by the runtime (`assumeIsolated`) when it cannot tell by itself whether the caller runs on this
    /// executor: true exactly when the caller is this executor's thread, which runs one item at a time.
    func checkIsolated() {
        condition.lock()
        let current = thread
        condition.unlock()
        guard let current, pthread_equal(current, pthread_self()) != 0 else {
            fatalError("not on the thread of \(name)")
        }
    }

    /// Runs `body` on the executor's thread each time its queue empties after running something, before it
    /// waits (a ledger gives back what it holds only while it has work: its PostgreSQL connection). Set once,
    /// before the first job.
    func whenDrained(_ body: @escaping @Sendable () -> Void) {
        condition.lock()
        drained = body
        condition.unlock()
    }

    /// Lets the thread end once its queue is empty.
    func shutdown() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func append(_ item: Item) {
        condition.lock()
        work.append(item)
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

    private func run() {
        condition.lock()
        thread = pthread_self()
        condition.unlock()
        var ranSinceDrained = false
        while true {
            condition.lock()
            if nextItem == work.count, ranSinceDrained, let drained {
                condition.unlock()
                ranSinceDrained = false
                drained()
                continue
            }
            while nextItem == work.count && !stopping { condition.wait() }
            if nextItem == work.count {
                threadRunning = false
                thread = nil
                condition.unlock()
                return
            }
            let item = work[nextItem]
            nextItem += 1
            if nextItem == work.count {  // drained: reuse the storage instead of growing forever
                work.removeAll(keepingCapacity: true)
                nextItem = 0
            }
            condition.unlock()
            ranSinceDrained = true
            switch item {
            case .job(let job): job.runSynchronously(on: asUnownedSerialExecutor())
            case .closure(let body): body()
            }
        }
    }
}
