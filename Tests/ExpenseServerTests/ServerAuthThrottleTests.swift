import Testing
@testable import ExpenseServer

@Suite struct ServerAuthThrottleTests {
    @Test func freeFailuresThenOneAttemptPerInterval() {
        let throttle = AuthThrottle(freeFailures: 3, interval: .seconds(1))
        let start = ContinuousClock.now
        for _ in 0..<3 {
            #expect(throttle.admit("10.0.0.1", ledger: "default", now: start) == .evaluate(after: .zero))
            throttle.recordFailure("10.0.0.1", ledger: "default", now: start)
        }
        // Past the free failures, parallel attempts queue one second apart, the first one second after the last failure.
        #expect(throttle.admit("10.0.0.1", ledger: "default", now: start) == .evaluate(after: .seconds(1)))
        #expect(throttle.admit("10.0.0.1", ledger: "default", now: start) == .evaluate(after: .seconds(2)))
        #expect(throttle.admit("10.0.0.1", ledger: "default", now: start) == .evaluate(after: .seconds(3)))
        // Other addresses, and other ledgers of the same address, are not affected.
        #expect(throttle.admit("10.0.0.2", ledger: "default", now: start) == .evaluate(after: .zero))
        #expect(throttle.admit("10.0.0.1", ledger: "other", now: start) == .evaluate(after: .zero))
        // More than 30 s of queue: refused outright, saying how far away the turn is.
        for _ in 0..<27 { _ = throttle.admit("10.0.0.1", ledger: "default", now: start) }
        #expect(throttle.admit("10.0.0.1", ledger: "default", now: start) == .refuse(retryAfter: .seconds(31)))
        // Forgotten ten minutes after the last failure.
        #expect(throttle.admit("10.0.0.1", ledger: "default", now: start + .seconds(601)) == .evaluate(after: .zero))
    }

    @Test func theSixthAttemptAfterFiveFailuresWaitsItsTurn() {
        let configuration = ServerConfiguration()
        let throttle = AuthThrottle(freeFailures: configuration.authFreeFailures, interval: configuration.authPenaltyInterval)
        let start = ContinuousClock.now
        for _ in 0..<5 {
            #expect(throttle.admit("10.0.0.1", ledger: "default", now: start) == .evaluate(after: .zero))
            throttle.recordFailure("10.0.0.1", ledger: "default", now: start)
        }
        #expect(throttle.admit("10.0.0.1", ledger: "default", now: start) == .evaluate(after: .seconds(1)))
        // A failure evaluated later moves the next turn to one interval after it.
        throttle.recordFailure("10.0.0.1", ledger: "default", now: start + .seconds(5))
        #expect(throttle.admit("10.0.0.1", ledger: "default", now: start + .seconds(5)) == .evaluate(after: .seconds(1)))
    }

    @Test func aFloodOfLedgerNamesStaysBoundedAndNeverFreesTheThrottledKey() {
        let throttle = AuthThrottle(freeFailures: 5, interval: .seconds(60))
        let start = ContinuousClock.now
        for _ in 0..<5 { throttle.recordFailure("10.0.0.1", ledger: "default", now: start) }
        #expect(throttle.admit("10.0.0.1", ledger: "default", now: start) == .refuse(retryAfter: .seconds(60)))
        // One address, 20,000 names (valid and invalid): one key per valid name up to the per-address bound,
        // then one shared key.
        for index in 0..<20_000 {
            throttle.recordFailure("10.0.0.1", ledger: index.isMultiple(of: 2) ? "name\(index)" : "BAD\n\(index)", now: start)
        }
        #expect(throttle.trackedKeys <= AuthThrottle.maximumLedgersPerAddress + 1)
        #expect(throttle.admit("10.0.0.1", ledger: "default", now: start) == .refuse(retryAfter: .seconds(60)))
        // Names past the bound share the overflow key, which the flood has throttled.
        #expect(throttle.admit("10.0.0.1", ledger: "another", now: start) != .evaluate(after: .zero))
        // Many addresses: the table stays at its bound.
        for index in 0..<(AuthThrottle.maximumKeys + 500) {
            throttle.recordFailure("10.1.\(index / 256).\(index % 256)", ledger: "default", now: start + .seconds(1))
        }
        #expect(throttle.trackedKeys <= AuthThrottle.maximumKeys)
    }
}
