import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Which threads run an ``EventLoop`` now, so that "runs on the loop thread only" is checked, not wished
/// (swift-nio's `eventLoop.assertInEventLoop()`), and so that "never runs on the loop thread" can be too.
package enum LoopThread {
    private static let threads = Mutex<Set<UInt>>([])

    /// Whether the calling thread is running an event loop.
    package static var isCurrent: Bool {
        let me = UInt(bitPattern: Int(bitPattern: pthread_self()))
        return threads.withLock { $0.contains(me) }
    }

    /// In debug builds, stops the program when the caller is not on a loop thread (release builds check nothing).
    package static func assertCurrent(file: StaticString = #fileID, line: UInt = #line) {
        assert(isCurrent, "must run on the event loop's thread", file: file, line: line)
    }

    /// In debug builds, stops the program when the caller is on a loop thread: work that may block (opening a
    /// ledger, a store's transaction) must not stall every connection.
    package static func assertNotCurrent(file: StaticString = #fileID, line: UInt = #line) {
        assert(!isCurrent, "must not run on an event loop's thread (it may block)", file: file, line: line)
    }

    /// Marks the calling thread as a loop thread while `body` runs.
    static func running(_ body: () -> Void) {
        let me = UInt(bitPattern: Int(bitPattern: pthread_self()))
        threads.withLock { _ = $0.insert(me) }
        defer { threads.withLock { _ = $0.remove(me) } }
        body()
    }
}
