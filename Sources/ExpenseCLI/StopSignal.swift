import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM as a request to stop a long-running command (`expense sync --watch`) between two steps,
/// instead of killing it wherever it is.
///
/// The handler only stores the signal's number; the command checks ``requested`` at its next step (at most
/// about a second later), finishes that step, closes its connection and exits 0.
enum StopSignal {
    /// The signal received, or 0. Lock-free, so it may be stored from a signal handler.
    private static let received = Atomic<Int32>(0)

    /// Installs the handler for SIGINT and SIGTERM. Call once, from the main thread, before waiting.
    static func install() {
        // Touch the static first: its lazy initialisation must not run inside the handler.
        received.store(0, ordering: .relaxed)
        for number in [SIGINT, SIGTERM] {
            _ = signal(number) { number in StopSignal.received.store(number, ordering: .relaxed) }
        }
    }

    /// The signal that asked to stop, if one did.
    static var requested: Int32? {
        let number = received.load(ordering: .relaxed)
        return number == 0 ? nil : number
    }

    /// Blocks the calling thread for `duration`, or less when a stop is requested meanwhile.
    static func pause(_ duration: Duration) {
        let clock = ContinuousClock()
        let end = clock.now + duration
        while requested == nil {
            let left = clock.now.duration(to: end)
            guard left > .zero else { return }
            let (seconds, attoseconds) = min(left, .milliseconds(100)).components
            var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            _ = nanosleep(&request, nil)
        }
    }
}
