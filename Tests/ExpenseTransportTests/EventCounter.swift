import Foundation
import Synchronization


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
