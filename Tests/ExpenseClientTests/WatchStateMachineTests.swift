import ExpenseClient
import Testing

/// `sync --watch`'s decisions as transcripts of inputs and the actions they return (postgres-nio's
/// `ConnectionStateMachineTests` is the model): no sockets, no clock; `now` is made up.
@Suite struct WatchStateMachineTests {
    let t0 = ContinuousClock.now

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { t0 + .milliseconds(milliseconds) }

    func machine(_ list: String, ping: Duration = .seconds(15)) throws -> WatchStateMachine {
        WatchStateMachine(rotation: try RemoteAddressList(parsing: list).order(preferred: nil, shuffle: { $0 }), pingInterval: ping)
    }

    func address(_ text: String) throws -> RemoteAddress { try #require(RemoteAddressList(parsing: text).addresses.first) }

    @Test func connectsSyncsWatchesAndPingsAfterQuiet() throws {
        var watch = try machine("a:1", ping: .seconds(3))
        let a = try address("a:1")
        #expect(watch.start(now: at(0)) == .connect(a))
        #expect(watch.state == .connecting(a, attempt: 1))
        #expect(watch.connected(now: at(10)) == .sync(watch: true))
        #expect(watch.state == .syncing(a))
        // Up to date: wait at most a second for a notification (local changes are looked at each second).
        #expect(watch.synced(now: at(100), needsRound: false) == .waitForChange(until: at(1100)))
        #expect(watch.state == .watching(a, lastActivity: at(100)))
        #expect(watch.waited(now: at(1100), needsRound: false) == .waitForChange(until: at(2100)))
        // The last wait before the ping ends at the ping's time, not a second later.
        #expect(watch.waited(now: at(2100), needsRound: false) == .waitForChange(until: at(3100)))
        #expect(watch.waited(now: at(3100), needsRound: false) == .ping)
        #expect(watch.pinged(now: at(3120), needsRound: false) == .waitForChange(until: at(4120)))
        #expect(watch.state == .watching(a, lastActivity: at(3120)))
        #expect(watch.stop() == .exit)
        #expect(watch.state == .stopped)
    }

    @Test func aNotificationOrALocalChangeRunsARoundThenWatchingGoesOn() throws {
        var watch = try machine("a:1", ping: .seconds(15))
        let a = try address("a:1")
        _ = watch.start(now: at(0))
        _ = watch.connected(now: at(0))
        // The watch result says the daemon is ahead (a change landed between the sync and `watch`).
        #expect(watch.synced(now: at(50), needsRound: true) == .sync(watch: false))
        #expect(watch.state == .syncing(a))
        #expect(watch.synced(now: at(90), needsRound: false) == .waitForChange(until: at(1090)))
        #expect(watch.waited(now: at(400), needsRound: true) == .sync(watch: false))
        #expect(watch.synced(now: at(500), needsRound: false) == .waitForChange(until: at(1500)))
        // A round is activity: the ping is due 15 s after it.
        #expect(watch.state == .watching(a, lastActivity: at(500)))
        #expect(watch.waited(now: at(15_400), needsRound: false) == .waitForChange(until: at(15_500)))
        #expect(watch.waited(now: at(15_500), needsRound: false) == .ping)
        // A ping that shows the daemon ahead runs a round.
        #expect(watch.pinged(now: at(15_510), needsRound: true) == .sync(watch: false))
    }

    @Test func oneAddressBacksOffWithDoublingWaitsBoundedAndResetAfterASync() throws {
        var watch = try machine("a:1")
        let a = try address("a:1")
        #expect(watch.start(now: at(0)) == .connect(a))
        #expect(watch.failed(now: at(5)) == .sleep(until: at(205)))
        #expect(watch.state == .backingOff(until: at(205), attempt: 1))
        #expect(watch.timerFired(now: at(205)) == .connect(a))
        #expect(watch.state == .connecting(a, attempt: 2))
        var now = 205
        var waits: [Int] = []
        for _ in 0..<7 {
            guard case .sleep(let until) = watch.failed(now: at(now)) else { Issue.record("no backoff"); return }
            let wait = at(now).duration(to: until)
            waits.append(Int(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000))
            now += waits.last ?? 0
            #expect(watch.timerFired(now: at(now)) == .connect(a))
        }
        #expect(waits == [400, 800, 1600, 3200, 5000, 5000, 5000])
        #expect(watch.state == .connecting(a, attempt: 9))
        // A connection that synced resets the backoff; when it breaks, the first wait is the shortest again.
        #expect(watch.connected(now: at(now)) == .sync(watch: true))
        _ = watch.synced(now: at(now), needsRound: false)
        #expect(watch.failed(now: at(now + 1000)) == .sleep(until: at(now + 1200)))
    }

    @Test func failoverMovesOnAcrossAddressesThenBacksOffAfterAFullPass() throws {
        var watch = try machine("a:1,b:2,c:3")
        let a = try address("a:1"), b = try address("b:2"), c = try address("c:3")
        #expect(watch.start(now: at(0)) == .connect(a))
        // a is dead: b at once, no wait.
        #expect(watch.failed(now: at(1)) == .connect(b))
        #expect(watch.state == .connecting(b, attempt: 1))
        #expect(watch.connected(now: at(2)) == .sync(watch: true))
        #expect(watch.synced(now: at(3), needsRound: false) == .waitForChange(until: at(1003)))
        #expect(watch.state == .watching(b, lastActivity: at(3)))
        // b dies mid-watch: c at once, then a; when all three failed, a backoff, then a new pass from b.
        #expect(watch.failed(now: at(500)) == .connect(c))
        #expect(watch.failed(now: at(501)) == .connect(a))
        #expect(watch.failed(now: at(502)) == .sleep(until: at(702)))
        #expect(watch.state == .backingOff(until: at(702), attempt: 1))
        #expect(watch.timerFired(now: at(702)) == .connect(b))
        #expect(watch.failed(now: at(703)) == .connect(c))
        #expect(watch.failed(now: at(704)) == .connect(a))
        #expect(watch.failed(now: at(705)) == .sleep(until: at(1105)))
        #expect(watch.timerFired(now: at(1105)) == .connect(b))
        #expect(watch.state == .connecting(b, attempt: 3))
        // c comes back: the watcher stays there.
        #expect(watch.failed(now: at(1106)) == .connect(c))
        #expect(watch.connected(now: at(1107)) == .sync(watch: true))
        #expect(watch.synced(now: at(1108), needsRound: false) == .waitForChange(until: at(2108)))
        #expect(watch.state == .watching(c, lastActivity: at(1108)))
        // A round that fails (the connection broke while syncing) moves on like a failed wait.
        #expect(watch.waited(now: at(1200), needsRound: true) == .sync(watch: false))
        #expect(watch.failed(now: at(1201)) == .connect(a))
    }

    @Test func stopEndsEveryState() throws {
        var connecting = try machine("a:1,b:2")
        _ = connecting.start(now: at(0))
        #expect(connecting.stop() == .exit)
        var backingOff = try machine("a:1")
        _ = backingOff.start(now: at(0))
        _ = backingOff.failed(now: at(0))
        #expect(backingOff.stop() == .exit && backingOff.state == .stopped)
    }
}
