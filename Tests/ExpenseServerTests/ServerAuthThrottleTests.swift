import Testing
@testable import ExpenseServer

@Suite struct ServerAuthThrottleTests {
    @Test func freeFailuresThenOneAttemptPerInterval() {
        let throttle = AuthThrottle(freeFailures: 3, interval: .seconds(1))
        let start = ContinuousClock.now
        for _ in 0..<3 {
            #expect(throttle.admit("10.0.0.1", now: start) == .evaluate(after: .zero))
            throttle.recordFailure("10.0.0.1", now: start)
        }
        // Parallel attempts queue one second apart.
        #expect(throttle.admit("10.0.0.1", now: start) == .evaluate(after: .zero))
        #expect(throttle.admit("10.0.0.1", now: start) == .evaluate(after: .seconds(1)))
        #expect(throttle.admit("10.0.0.1", now: start) == .evaluate(after: .seconds(2)))
        // Other addresses are not affected.
        #expect(throttle.admit("10.0.0.2", now: start) == .evaluate(after: .zero))
        // More than 30 s of queue: refused outright.
        for _ in 0..<28 { _ = throttle.admit("10.0.0.1", now: start) }
        #expect(throttle.admit("10.0.0.1", now: start) == .refuse)
        // Forgotten ten minutes after the last failure.
        #expect(throttle.admit("10.0.0.1", now: start + .seconds(601)) == .evaluate(after: .zero))
    }
}
