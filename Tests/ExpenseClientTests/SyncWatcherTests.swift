import TestSupport
import ExpenseClient
import ExpenseCore
import Foundation
import Synchronization
import Testing

/// ``SyncWatcher``, the loop of `sync --watch`, against an in-process daemon with its clock, pause and stop request
/// injected: what it tells its caller, in order, and the backoff it waits, without a real sleep.
@Suite struct SyncWatcherTests {
    /// A value shared between the watcher's closures and the test, across the thread it runs on.
    final class Shared<Value: Sendable>: Sendable {
        let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
        func update<T: Sendable>(_ body: (inout sending Value) -> sending T) -> T { value.withLock(body) }
    }

    /// The events of a watch, as text, so a transcript compares in one `#expect`.
    private static func describe(_ event: SyncWatcher.Event) -> String {
        switch event {
        case .watching: "watching"
        case .synced(let report): "synced pushed \(report.pushed) pulled \(report.pulled)"
        case .tryingNext(let next, _): "trying \(next)"
        case .reconnecting(let wait, _): "reconnecting in \(SyncConnection.seconds(wait))"
        case .stopped: "stopped"
        }
    }

    @Test func aWatchSyncsWatchesAndStopsAfterTheStepInProgress() async throws {
        let daemon = try TestDaemon()
        let bob = try TestClient("bob"), ann = try TestClient("ann")
        _ = try bob.add(1250, "food")
        try await bob.sync(daemon)
        _ = try ann.add(300, "books")
        let engine = ann.engine(daemon)
        let events = try await onOwnThread { [engine] in
            let told = Shared<[String]>([])
            var watcher = SyncWatcher(engine: engine, pingInterval: .seconds(60))
            // A stop asked for once the first round is reported ends the watch before it waits for a change.
            watcher.stopRequested = { told.update { $0.contains { $0.hasPrefix("synced") } } }
            try watcher.run { event in told.update { $0.append(Self.describe(event)) } }
            return told.update { $0 }
        }
        #expect(events == ["watching", "synced pushed 1 pulled 1", "stopped"])
        #expect(try ann.live().count == 2)
        await daemon.stop()
    }

    @Test func anUnreachableDaemonIsRetriedWithDoublingBackoffOnTheInjectedClock() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann")
        ann.remote = RemoteConfiguration(server: try LoopbackListener.deadAddress(), ledger: "default", token: daemon.token)
        let engine = ann.engine(daemon)
        await daemon.stop()
        let (events, waited) = try await onOwnThread { [engine] in
            let start = ContinuousClock.now
            let elapsed = Shared(Duration.zero)
            let pauses = Shared<[Duration]>([])
            let told = Shared<[String]>([])
            var watcher = SyncWatcher(engine: engine, pingInterval: .seconds(60))
            watcher.now = { start + elapsed.update { $0 } }
            // Time passes only when the watcher pauses: the backoff is read off the clock, never slept.
            watcher.pause = { wait in
                pauses.update { $0.append(wait) }
                elapsed.update { $0 += wait }
            }
            watcher.stopRequested = { pauses.update { $0.count >= 6 } }
            try watcher.run { event in told.update { $0.append(Self.describe(event)) } }
            return (told.update { $0 }, pauses.update { $0 })
        }
        // 0.2 s doubled per failed pass over a one-address list, at most 5 s (docs/usage.md, "Sync").
        #expect(waited == [.milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600),
                           .milliseconds(3200), .seconds(5)])
        #expect(events.count == 7 && events.last == "stopped")
        #expect(events.dropLast().allSatisfy { $0.hasPrefix("reconnecting in ") }, "\(events)")
    }
}
