import Synchronization
import TestSupport

/// A counter that tests can wait on (polling every millisecond, up to a deadline).
final class EventCounter: Sendable {
    private let count = Atomic<Int>(0)

    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }

    /// Waits until the count reaches `target`; returns whether it did within `timeout`.
    func wait(for target: Int, timeout: Duration = .seconds(10)) -> Bool {
        eventually(timeout: timeout, pause: .milliseconds(1)) { value >= target }
    }
}
