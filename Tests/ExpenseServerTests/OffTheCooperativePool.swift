import Dispatch
import Testing

/// Runs each test of a suite on Dispatch worker threads instead of the cooperative pool, through a task
/// executor preference (SE-0417): a synchronous test function is called from its test's task, so it runs on
/// that task's executor, and without this it would hold one of the pool's two threads for as long as it
/// blocks (on PostgreSQL, a round trip per statement), starving the in-process daemons of the other suites.
///
/// ``DispatchTaskExecutor/isCurrent`` tells whether a test runs there (``OffTheCooperativePoolTests``).
struct OffTheCooperativePool: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        // The suite's own scope has no test case: only the cases themselves move.
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(DispatchTaskExecutor.shared) { try await function() }
    }
}

extension Trait where Self == OffTheCooperativePool {
    /// Every test of the suite runs off the cooperative pool (``OffTheCooperativePool``).
    static var offTheCooperativePool: Self { OffTheCooperativePool() }
}

/// A task executor over one serial Dispatch queue: a Dispatch worker thread, never the cooperative pool's.
///
/// Serial on purpose: the suites moved here then run one blocking case at a time, as they did on the pool's
/// two threads, instead of all at once (a concurrent queue let Dispatch start dozens of threads and
/// PostgreSQL connections together, a load burst that delayed the timing-sensitive tests of other suites).
/// A case that suspends (an `async` test awaiting ``TestSupport/onOwnThread``) frees the queue meanwhile.
final class DispatchTaskExecutor: TaskExecutor {
    static let shared = DispatchTaskExecutor()
    /// Set on the executor's queue: whether the caller runs there.
    static let marker = DispatchSpecificKey<Bool>()
    private let queue: DispatchQueue

    private init() {
        queue = DispatchQueue(label: "tests.off-the-pool")
        queue.setSpecific(key: Self.marker, value: true)
    }

    /// Whether the caller runs on this executor's queue.
    static var isCurrent: Bool { DispatchQueue.getSpecific(key: marker) == true }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

@Suite struct OffTheCooperativePoolTests {
    @Test func aSynchronousTestRunsWhereItsTaskRunsWithoutTheTrait() {
        #expect(!DispatchTaskExecutor.isCurrent)
    }

    @Test(.offTheCooperativePool) func andOnDispatchsWorkerThreadsWithIt() {
        #expect(DispatchTaskExecutor.isCurrent)
    }
}
