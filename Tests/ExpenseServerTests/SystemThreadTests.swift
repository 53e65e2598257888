import Foundation
import Synchronization
import SystemKit
import TestSupport
import Testing

/// The daemon's own threads (`SystemThread`) and what they wait on (`ThreadCondition`), which replaced Foundation's
/// `Thread` and `NSCondition`: a thread runs its body under its name, and a waiter wakes for a signal. The waits run
/// on a thread of their own, never the cooperative pool.
@Suite struct SystemThreadTests {
    @Test func aThreadRunsItsBodyUnderItsNameAndWakesItsWaiter() async throws {
        let name = try await onOwnThread(Self.nameSeenByANewThread)
        #expect(name == "test-thread-nam")  // Linux keeps 15 bytes of a thread's name
    }

    private static func nameSeenByANewThread() throws -> String {
        let condition = ThreadCondition()
        let seen = Mutex<String?>(nil)
        try SystemThread.start(name: "test-thread-name-longer-than-fifteen", stackSize: 64 * 1024) {
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "unreadable"
            condition.withLock {
                seen.withLock { $0 = name.trimmingCharacters(in: .newlines) }
                condition.signal()
            }
        }
        return condition.withLock { () -> String in
            while true {
                if let name = seen.withLock({ $0 }) { return name }
                condition.wait()
            }
        }
    }

    @Test func broadcastWakesEveryWaiter() async throws {
        #expect(try await onOwnThread(Self.wokenByOneBroadcast) == 3)
    }

    private static func wokenByOneBroadcast() throws -> Int {
        let condition = ThreadCondition()
        let state = Mutex((waiting: 0, released: false, woken: 0))
        for index in 0..<3 {
            try SystemThread.start(name: "waiter-\(index)") {
                condition.withLock {
                    state.withLock { $0.waiting += 1 }
                    condition.broadcast()
                    while !state.withLock({ $0.released }) { condition.wait() }
                    state.withLock { $0.woken += 1 }
                    condition.broadcast()
                }
            }
        }
        condition.withLock {
            while state.withLock({ $0.waiting }) < 3 { condition.wait() }
            state.withLock { $0.released = true }
            condition.broadcast()
            while state.withLock({ $0.woken }) < 3 { condition.wait() }
        }
        return state.withLock { $0.woken }
    }
}
