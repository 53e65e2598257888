import Foundation
import Synchronization

/// Runs blocking socket code on a thread of its own, not on the cooperative pool: the pool has one thread
/// per core, and a test blocked in `read` there would starve the server's own tasks.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// A counter that tests can wait on (polling every millisecond, up to a deadline).
final class EventCounter: Sendable {
    private let count = Atomic<Int>(0)

    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }

    /// Waits until the count reaches `target`; returns whether it did within `timeout`.
    func wait(for target: Int, timeout: Duration = .seconds(10)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while value < target {
            if ContinuousClock.now >= deadline { return false }
            usleep(1000)
        }
        return true
    }
}
