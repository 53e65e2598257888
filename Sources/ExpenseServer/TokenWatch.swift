import Dispatch
import Synchronization

/// The token watch of a ledger directory (``LedgerDirectory/watchTokens(every:)``,
/// ``PostgresLedgerDirectory/watchTokens(every:)``): every interval, each open ledger takes in token changes made
/// by another process or daemon and writes its tokens' last uses, on Dispatch timers (never the cooperative
/// pool) until ``stop()``. One type for both directories, so the two cannot drift apart.
final class TokenWatch: Sendable {
    private let running = Mutex(false)

    /// Runs `ledgers()`'s token check every `interval` from now on; a second call while running does nothing.
    func start(every interval: Duration, ledgers: @escaping @Sendable () -> [Ledger]) {
        let start = running.withLock { running -> Bool in
            defer { running = true }
            return !running
        }
        if start { schedule(after: interval, ledgers: ledgers) }
    }

    /// No more rounds after the one in progress, if any.
    func stop() { running.withLock { $0 = false } }

    /// One round now: `completion` runs once every ledger has taken in its token changes.
    static func check(_ ledgers: [Ledger], completion: @escaping @Sendable () -> Void) {
        let group = DispatchGroup()
        for ledger in ledgers {
            group.enter()
            ledger.checkTokens { group.leave() }
        }
        group.notify(queue: .global(), execute: completion)
    }

    private func schedule(after interval: Duration, ledgers: @escaping @Sendable () -> [Ledger]) {
        let (seconds, attoseconds) = interval.components
        let delay = Double(seconds) + Double(attoseconds) / 1e18  // seconds of waiting, not money
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self, self.running.withLock({ $0 }) else { return }
            Self.check(ledgers()) {}
            self.schedule(after: interval, ledgers: ledgers)
        }
    }
}
