import Foundation
import Glibc
import Synchronization
import SystemKit

/// What must be undone however the bench ends (servers it started): run at the normal end, and from a thread that
/// turns SIGINT or SIGTERM into a clean exit, so an interrupted run leaves no Redis, PostgreSQL or daemon of its own
/// behind.
enum BenchCleanup {
    private static let actions = Mutex<[Int: @Sendable () -> Void]>([:])
    private static let nextKey = Atomic<Int>(0)

    /// Registers `action`; returns the key that ``remove(_:)`` takes once the action is no longer needed.
    static func add(_ action: @escaping @Sendable () -> Void) -> Int {
        let key = nextKey.add(1, ordering: .relaxed).newValue
        actions.withLock { $0[key] = action }
        return key
    }

    static func remove(_ key: Int) { _ = actions.withLock { $0.removeValue(forKey: key) } }

    /// Runs (and forgets) every registered action, newest first.
    static func runAll() {
        let pending = actions.withLock { all in
            defer { all.removeAll() }
            return all.sorted { $0.key > $1.key }.map(\.value)
        }
        for action in pending { action() }
    }

    /// From now on SIGINT and SIGTERM run ``runAll()`` and exit with 128 + the signal's number.
    static func installSignalHandlers() {
        do {
            try StopSignal.install()
        } catch {
            progress("warning: no stop-signal handler (\(error)); servers started by this run may outlive an interrupted run")
            return
        }
        let thread = Thread {
            let signalNumber = StopSignal.wait()
            progress("signal \(signalNumber): stopping what this run started")
            runAll()
            _exit(128 + signalNumber)
        }
        thread.start()
    }
}
