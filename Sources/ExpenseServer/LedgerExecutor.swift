import FoundationEssentials
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// A serial executor for one ``Ledger`` actor (or one checkpointer), whose work runs on the process's shared
/// ledger threads (``LedgerThreads``), never on the cooperative pool.
///
/// Why: the cooperative pool has one thread per core (two here). A ledger's work blocks, above all in the fsync of
/// a commit; on the pool that would stall every connection. On a ledger thread it stalls only the ledger, and
/// pushes that arrive meanwhile queue up here and share the next commit (group commit). Items run one at a time,
/// in order, on one thread at a time; which thread may change between batches.
///
/// Besides the actor's jobs it runs plain closures (``enqueue(_:)-(()->Void)``), in the same FIFO order: that is
/// how the network loop hands a request to the ledger without creating a `Task` (``Ledger/perform(_:)``).
/// ``checkIsolated()`` confirms to the runtime that such a closure runs on the actor's executor, which is what
/// lets it call `assumeIsolated`.
final class LedgerExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked Sendable: `work`, `nextItem`, `state` and `drained` are read and written only while holding
    // `lock`; `name` and `threads` are immutable.
    private enum Item {
        case job(UnownedJob)
        case closure(@Sendable () -> Void)
    }

    /// Where the executor is in its life: no work, waiting for a thread, or running on one.
    private enum State {
        case idle
        case queued
        case running(pthread_t)
    }

    private let lock = ThreadCondition()
    private var work: [Item] = []
    private var nextItem = 0
    private var state = State.idle
    private let name: String
    private let threads: LedgerThreads
    /// Run on the thread each time a batch ends (``whenDrained(_:)``).
    private var drained: (@Sendable () -> Void)?

    init(name: String, threads: LedgerThreads = .shared) {
        self.name = name
        self.threads = threads
    }

    func enqueue(_ job: consuming ExecutorJob) {
        append(.job(UnownedJob(job)))
    }

    /// Runs `body` on a ledger thread, as this executor, after everything queued before it.
    func enqueue(_ body: @escaping @Sendable () -> Void) {
        append(.closure(body))
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// Called by the runtime (`assumeIsolated`) when it cannot tell by itself whether the caller runs on this
    /// executor: true exactly when the caller is the thread running this executor's items now.
    func checkIsolated() {
        lock.lock()
        let current: pthread_t? = if case .running(let thread) = state { thread } else { nil }
        lock.unlock()
        guard let current, pthread_equal(current, pthread_self()) != 0 else {
            fatalError("not on the thread of \(name)")
        }
    }

    /// Runs `body` as this executor each time it leaves a thread: when its queue is empty, and between two
    /// batches of a long queue. A ledger gives back there what it holds only while running (its PostgreSQL
    /// connection), so a thread waiting for one never waits for a ledger that is not running. Set once, before the
    /// first job.
    func whenDrained(_ body: @escaping @Sendable () -> Void) {
        lock.lock()
        drained = body
        lock.unlock()
    }

    private func append(_ item: Item) {
        lock.lock()
        work.append(item)
        let schedule: Bool
        if case .idle = state {
            state = .queued
            schedule = true
        } else {
            schedule = false
        }
        lock.unlock()
        if schedule { threads.schedule(self) }
    }

    /// Runs up to `limit` items on the calling thread (a ledger thread), then the drained hook; whether work is
    /// left, in which case the caller queues the executor again.
    func runBatch(atMost limit: Int) -> Bool {
        lock.lock()
        state = .running(pthread_self())
        lock.unlock()
        for _ in 0..<limit {
            lock.lock()
            guard nextItem < work.count else {
                lock.unlock()
                break
            }
            let item = work[nextItem]
            nextItem += 1
            if nextItem == work.count {  // drained: reuse the storage instead of growing forever
                work.removeAll(keepingCapacity: true)
                nextItem = 0
            }
            lock.unlock()
            switch item {
            case .job(let job): job.runSynchronously(on: asUnownedSerialExecutor())
            case .closure(let body): body()
            }
        }
        lock.lock()
        let hook = drained
        lock.unlock()
        hook?()
        lock.lock()
        defer { lock.unlock() }
        if nextItem == work.count {
            state = .idle
            return false
        }
        state = .queued
        return true
    }
}
