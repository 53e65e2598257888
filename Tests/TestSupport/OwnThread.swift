import Foundation

/// Runs blocking work (sockets, child processes, a sync engine) on a thread of its own and awaits it.
///
/// Every test target runs in one process, whose cooperative pool has one thread per core (two here); a test
/// blocked on that pool starves the in-process daemons of the other tests, whose hellos then time out. The
/// stack is 4 MiB, enough for the sync engine's deepest calls.
///
/// The body runs inside the calling task, on a task executor whose one thread is its own, so what it records
/// (`#expect`, `#require`, `Issue.record`) belongs to the test that called it. (Run on a bare thread, an issue had no
/// test: it was printed as "Test «unknown»" and counted once for every test running at that moment.)
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    let executor = OwnThreadExecutor()
    defer { executor.finish() }
    return try await withTaskExecutorPreference(executor, isolation: nil) { try await runConcurrently(body) }
}

/// `body`, called off the caller's executor, on the task's preferred one (`@concurrent`: so also where a closure
/// would otherwise run on its caller's executor, the cooperative pool).
@concurrent private func runConcurrently<T>(_ body: () throws -> T) async throws -> T {
    try body()
}

/// A task executor with one thread of its own, which ends once ``finish()`` was called and its queue is empty;
/// a job enqueued after that (a task that kept the preference) goes to the global executor instead.
final class OwnThreadExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs` and `finished` are read and written only while holding `condition`'s lock.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    init() {
        let thread = Thread { [self] in run() }
        thread.stackSize = 4 << 20
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        guard !finished else {
            condition.unlock()
            globalConcurrentExecutor.enqueue(job)
            return
        }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// No more jobs: the thread ends once it has run those queued.
    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            guard !jobs.isEmpty else {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
