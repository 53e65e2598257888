import TestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing

/// What a sync reports and tells as it goes: `pulled` counts other clients' changes, never the echo of this
/// client's own; the engine tells its progress (``SyncEvent``) through a closure.
@Suite(.serialized) struct SyncReportTests {
    @Test func ownPushesComingBackAreNotCountedAsPulled() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann"), bob = try TestClient("bob")
        try addMany(1_500, to: ann)
        let first = try await ann.sync(daemon)
        #expect(first.pushed == 1_500 && first.pulled == 0)
        try bob.add(5, "tea")
        let bobs = try await bob.sync(daemon)
        #expect(bobs.pushed == 1 && bobs.pulled == 1_500)
        // Not settled (a change queued here): records are read back, the rule is the same.
        try ann.add(7, "rent")
        let second = try await ann.sync(daemon)
        #expect(second.pushed == 1 && second.pulled == 1)
        await daemon.stop()
    }

    /// A push whose answer was lost is recovered next time (`duplicate` with its outcome): its record is this
    /// client's own, not counted as pulled.
    @Test func aRecoveredLostAnswerIsNotCountedAsPulled() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann")
        try ann.add(100, "food")
        let faults = Counter()
        ann.attempts = 1
        ann.dependencies.faultInjection = { point, _ in
            guard point == .pushAnswered, faults.increment() == 1 else { return }
            throw SyncError.unreachable("connection dropped by the test")
        }
        await #expect(throws: SyncError.self) { try await ann.sync(daemon) }
        ann.dependencies.faultInjection = nil
        let report = try await ann.sync(daemon)
        #expect(report.pushed == 1 && report.pulled == 0)
        await daemon.stop()
    }

    @Test func theEngineTellsConnectingPushAndPullProgress() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann")
        try addMany(2_500, to: ann)
        let events = EventLog()
        var engine = ann.engine(daemon)
        engine.configuration.progress = { events.append($0) }
        _ = try await onOwnThread { [engine] in try engine.sync() }
        let seen = events.all
        #expect(seen.first == .connecting(server: daemon.remote.server, attempt: 1, attempts: 4))
        let pushes = seen.compactMap { if case .pushing(let sent, let total) = $0 { (sent, total) } else { nil } }
        #expect(pushes.map(\.0) == [1000, 2000, 2500] && pushes.allSatisfy { $0.1 == 2500 })
        let pulls = seen.compactMap { if case .pulling(let records, _, let cursor, let head) = $0 { (records, cursor, head) } else { nil } }
        // The head is the one the pushes announced (hello's was 0), so the share grows with the pages.
        #expect(pulls.first?.0 == 0 && pulls.last?.0 == 2500 && pulls.allSatisfy { $0.2 == 2500 })
        #expect(seen.last == .finished)
        await daemon.stop()
    }

    @Test func retriesAreTold() async throws {
        let daemon = try TestDaemon()
        await daemon.stop()
        let remote = RemoteConfiguration(server: try LoopbackListener.deadAddress(), ledger: "default", token: daemon.token)
        let ann = try TestClient("ann")
        ann.remote = remote
        ann.attempts = 3
        let events = EventLog()
        var engine = ann.engine(daemon)
        engine.configuration.progress = { events.append($0) }
        await #expect(throws: SyncError.self) { try await onOwnThread { [engine] in try engine.sync() } }
        let kinds = events.all.map { event -> String in
            switch event {
            case .connecting(let server, let attempt, let attempts): "connect \(server == remote.server) \(attempt)/\(attempts)"
            case .retrying(let attempt, let attempts, let wait, _): "retry \(attempt)/\(attempts) \(wait)"
            case .finished: "finished"
            default: "other"
            }
        }
        #expect(kinds == ["connect true 1/3", "retry 2/3 0.02 seconds", "connect true 2/3", "retry 3/3 0.04 seconds",
                          "connect true 3/3", "finished"])
    }
}

/// Adds `count` expenses in one transaction (in memory: the test's task must not hold a pool thread for long).
private func addMany(_ count: Int, to client: TestClient) throws {
    try client.ledger.add((0..<count).map { index in
        ExpenseDraft(amount: Int64(100 + index), currency: "USD", category: "food", date: "2026-03-01", note: "")
    })
}

/// Events told from the sync's thread, read by the test afterwards.
final class EventLog: @unchecked Sendable {
    // @unchecked Sendable: guarded by `lock`.
    private let lock = NSLock()
    private var events: [SyncEvent] = []
    func append(_ event: SyncEvent) { lock.withLock { events.append(event) } }
    var all: [SyncEvent] { lock.withLock { events } }
}
