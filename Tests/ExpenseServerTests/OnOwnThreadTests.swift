import Dispatch
import Foundation
import Testing
import TestSupport

/// ``onOwnThread(_:)`` runs its body off the cooperative pool, and inside the calling test: an `#expect` there is
/// that test's (on a bare thread it had no test, and was printed as "Test «unknown»" for every test running then).
struct OnOwnThreadTests {
    @Test func theBodyRunsAsPartOfTheCallingTest() async throws {
        let outer = try #require(Test.current?.id)
        let inner = try await onOwnThread { Test.current?.id }
        #expect(inner == outer)
    }

    /// More bodies than the pool has threads, each blocked until all have started: on the pool the last ones
    /// could not start until the first gave up.
    @Test func bodiesBlockingTogetherEachHaveAThread() async throws {
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        let arrived = DispatchSemaphore(value: 0), allArrived = DispatchSemaphore(value: 0)
        let waited = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<count {
                group.addTask {
                    try await onOwnThread {
                        arrived.signal()
                        return allArrived.wait(timeout: .now() + 30) == .success
                    }
                }
            }
            group.addTask {
                try await onOwnThread {
                    for _ in 0..<count { guard arrived.wait(timeout: .now() + 30) == .success else { return false } }
                    for _ in 0..<count { allArrived.signal() }
                    return true
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(waited == Array(repeating: true, count: count + 1))
    }

    @Test func whatTheBodyThrowsReachesTheCaller() async {
        struct Refused: Error, Equatable {}
        await #expect(throws: Refused()) { try await onOwnThread { throw Refused() } }
    }
}
