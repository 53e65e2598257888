import CEpoll
import Dispatch
import Synchronization

/// Freed heap given back to the system once a burst of work has ended, as jemalloc's decay purging does for
/// Redis: glibc's malloc keeps freed chunks resident in its arenas, so without this a daemon that once committed
/// large groups holds their pages for good (after the bench's pushes, an idle daemon sat at 66.7 MiB before any
/// connection came; trimmed, it held 60.9 MiB with 5,000). Work is counted with ``noteWork()`` (a relaxed atomic
/// add); a Dispatch timer, never the event loop or the cooperative pool, looks at the count every interval and
/// calls `malloc_trim(0)` once when a tick finds the work stopped.
package final class HeapReturn: Sendable {
    private static let work = Atomic<UInt64>(0)
    private let running = Mutex(false)
    private let policy = Mutex(Policy())
    private let trim: @Sendable () -> Void
    private let workDone: @Sendable () -> UInt64

    /// When to trim, from successive readings of the work count: the first tick that sees no new work since a
    /// tick that did trims, once; idle ticks after that do nothing.
    package struct Policy: Sendable, Equatable {
        private var lastSeen: UInt64 = 0
        private var dirty = false
        package init() {}

        /// Whether to trim now, given the work count read at this tick.
        package mutating func tick(work: UInt64) -> Bool {
            if work != lastSeen {
                lastSeen = work
                dirty = true
                return false
            }
            defer { dirty = false }
            return dirty
        }
    }

    /// `trim` is `malloc_trim(0)` and `workDone` reads ``noteWork()``'s count, unless a test passes its own.
    package init(trim: @escaping @Sendable () -> Void = { _ = malloc_trim(0) },
                 workDone: @escaping @Sendable () -> UInt64 = { HeapReturn.work.load(ordering: .relaxed) }) {
        self.trim = trim
        self.workDone = workDone
    }

    /// Counts one unit of work that allocates and frees a lot (a committed group of pushes, a pull page).
    package static func noteWork() { work.add(1, ordering: .relaxed) }

    /// Keeps freed buffers of up to a few MiB in the heap for the next one, for the whole process: glibc maps
    /// each buffer above its mmap threshold afresh and gives the top of an arena back once more than twice that
    /// is free, so a first sync's pull pages (a buffer of about 1 MB for each page's records and one for its
    /// line, on both sides) were faulted in page by page for every page: 85,000 minor faults and 0.3 s of kernel
    /// time in the daemon for a million expenses, against 807 faults and 0.03 s with this. Buffers below 4 MiB
    /// now come from the heap, and up to 32 MiB free at an arena's top stays there; ``HeapReturn`` still gives it
    /// all back once a burst of work ends.
    package static func keepLargeBuffers() {
        _ = mallopt(M_MMAP_THRESHOLD, 4 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 32 << 20)
    }

    /// One tick of the timer: trims when the policy says so. Returns whether it trimmed.
    @discardableResult
    package func tick() -> Bool {
        let now = workDone()
        guard policy.withLock({ $0.tick(work: now) }) else { return false }
        trim()
        return true
    }

    /// Ticks every `interval` from now on, until ``stop()``; a second call while running does nothing.
    package func start(every interval: Duration) {
        let start = running.withLock { running -> Bool in
            defer { running = true }
            return !running
        }
        if start { schedule(after: interval) }
    }

    /// No more ticks.
    package func stop() { running.withLock { $0 = false } }

    private func schedule(after interval: Duration) {
        let (seconds, attoseconds) = interval.components
        let delay = Double(seconds) + Double(attoseconds) / 1e18  // seconds of waiting, not money
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self, self.running.withLock({ $0 }) else { return }
            self.tick()
            self.schedule(after: interval)
        }
    }
}
