import LedgerTestSupport
import TestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import Foundation
import Testing

/// The sync stories of docs/usage.md ("Sync") and Protocol.md §7, each with a real daemon (SQLite ledger, network front on port 0) and two clients.
@Suite(.serialized) struct SyncStoryTests {
    @Test func offlineAddsOnBothSidesConverge() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann", persistent: true), bob = try TestClient("bob")
        try ann.add(1250, "food", note: "lunch")
        try ann.add(4000, "rent")
        try bob.add(300, "coffee")
        let first = try await ann.sync(daemon)
        // Pulled counts others' changes: Ann's own two come back as echoes, not counted.
        #expect(first.pushed == 2 && first.pulled == 0 && first.openConflicts == 0 && first.pending == 0)
        let second = try await bob.sync(daemon)
        #expect(second.pushed == 1 && second.pulled == 2)
        try await ann.sync(daemon)
        let server = liveExpenses(try await daemon.records())
        #expect(server.count == 3)
        #expect(try ann.live() == server)
        #expect(try bob.live() == server)
        let again = try await bob.sync(daemon)
        #expect(again == SyncEngine.Report.upToDate(cursor: again.cursor))
        await daemon.stop()
    }

    /// Ann and Bob both change the amount of one expense; Bob syncs second and gets the conflict.
    private func sameFieldConflict(_ daemon: TestDaemon) async throws -> (TestClient, TestClient, Expense) {
        let ann = try TestClient("ann"), bob = try TestClient("bob", persistent: true)
        let expense = try ann.add(1000, "food", note: "dinner")
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        try ann.edit(expense.id, ExpenseDraft(amount: 1100))
        try bob.edit(expense.id, ExpenseDraft(amount: 1200))
        #expect(try await ann.sync(daemon).pushed == 1)
        let report = try await bob.sync(daemon)
        #expect(report.newConflicts == 1 && report.openConflicts == 1 && report.pushed == 0)
        let conflict = try #require(try bob.ledger.store.conflicts().first)
        // A money change carries the whole money group, amount, currency and split (Protocol.md §7.4).
        #expect(conflict.mine == .put && conflict.mineFields == ExpenseDraft(amount: 1200, currency: "USD", split: "", charged: 0, parts: ""))
        #expect(conflict.theirs.expense.amount == 1100 && conflict.theirs.version == 2)
        #expect(conflict.differences.map(\.field) == ["amount"])
        // The local view shows theirs while the conflict is open.
        #expect(try bob.live()[expense.id]?.amount == 1100)
        return (ann, bob, expense)
    }

    @Test(arguments: ["mine", "theirs", "edit"])
    func sameFieldEditedDifferentlyIsAConflictForTheSecondPusher(resolution: String) async throws {
        let daemon = try TestDaemon()
        let (ann, bob, expense) = try await sameFieldConflict(daemon)
        let conflict = try bob.ledger.conflict(String(expense.idString.prefix(6)))
        let expected: Int64
        switch resolution {
        case "mine": try bob.ledger.resolve(conflict, .mine); expected = 1200
        case "theirs": try bob.ledger.resolve(conflict, .theirs); expected = 1100
        default: try bob.ledger.resolve(conflict, .edit(ExpenseDraft(amount: 1150, note: "split"))); expected = 1150
        }
        #expect(try bob.ledger.store.conflicts().isEmpty)
        let report = try await bob.sync(daemon)
        #expect(report.openConflicts == 0 && report.pending == 0)
        #expect(report.pushed == (resolution == "theirs" ? 0 : 1))
        try await ann.sync(daemon)
        let server = liveExpenses(try await daemon.records())
        #expect(server[expense.id]?.amount == expected)
        #expect(server[expense.id]?.note == (resolution == "edit" ? "split" : "dinner"))
        #expect(try ann.live() == server && bob.live() == server)
        await daemon.stop()
    }

    @Test func disjointFieldsMergeWithoutConflict() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann"), bob = try TestClient("bob")
        let expense = try ann.add(1000, "food", note: "dinner")
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        try ann.edit(expense.id, ExpenseDraft(note: "dinner with Eve"))
        try bob.edit(expense.id, ExpenseDraft(amount: 1800))
        try await ann.sync(daemon)
        let report = try await bob.sync(daemon)
        #expect(report.newConflicts == 0 && report.pushed == 1)
        try await ann.sync(daemon)
        let server = liveExpenses(try await daemon.records())
        #expect(server[expense.id]?.amount == 1800 && server[expense.id]?.note == "dinner with Eve")
        #expect(try ann.live() == server && bob.live() == server)
        await daemon.stop()
    }

    @Test func deleteThenEditIsAConflictAndMineRestoresTheExpense() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann"), bob = try TestClient("bob")
        let expense = try ann.add(1000, "food")
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        try ann.delete(expense.id)
        try bob.edit(expense.id, ExpenseDraft(note: "keep this"))
        try await ann.sync(daemon)
        let report = try await bob.sync(daemon)
        #expect(report.newConflicts == 1)
        let conflict = try bob.ledger.conflict(expense.idString)
        #expect(conflict.theirs.deleted && conflict.mine == .put)
        #expect(conflict.differences.first?.field == "deleted")
        #expect(try bob.live()[expense.id] == nil)  // theirs: deleted
        try bob.ledger.resolve(conflict, .mine)
        #expect(try await bob.sync(daemon).pushed == 1)
        try await ann.sync(daemon)
        let server = try await daemon.records()
        #expect(server[expense.id]?.deleted == false && server[expense.id]?.expense.note == "keep this")
        #expect(try ann.live() == liveExpenses(server) && bob.live() == liveExpenses(server))
        await daemon.stop()
    }

    @Test func editThenDeleteIsAConflictAndTheirsKeepsTheEdit() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann"), bob = try TestClient("bob")
        let expense = try ann.add(1000, "food")
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        try ann.edit(expense.id, ExpenseDraft(amount: 2000))
        try bob.delete(expense.id)
        try await ann.sync(daemon)
        let report = try await bob.sync(daemon)
        #expect(report.newConflicts == 1)
        let conflict = try bob.ledger.conflict(expense.idString)
        #expect(conflict.mine == .delete && !conflict.theirs.deleted)
        #expect(try bob.live()[expense.id]?.amount == 2000)
        try bob.ledger.resolve(conflict, .theirs)
        #expect(try await bob.sync(daemon).openConflicts == 0)
        let server = liveExpenses(try await daemon.records())
        #expect(server[expense.id]?.amount == 2000)
        #expect(try bob.live() == server)
        await daemon.stop()
    }

    @Test(arguments: [SyncEngine.FaultPoint.pushAnswered, .pushWritten])
    func lostAcknowledgementIsRetriedWithoutDuplicate(fault: SyncEngine.FaultPoint) async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann", persistent: true)
        let expense = try ann.add(1000, "food")
        try await ann.sync(daemon)
        try ann.edit(expense.id, ExpenseDraft(amount: 1500))
        let added = try ann.add(700, "taxi")
        let faults = Counter()
        let ledger = try daemon.ledger
        let clientId = try #require(try ann.ledger.store.clientId())
        ann.dependencies.faultInjection = { point, batch in
            guard point == fault, faults.increment() == 1 else { return }
            if point == .pushWritten {
                // Wait until the daemon has applied the push, then lose the answer.
                let last = batch.compactMap(\.mutationId).max() ?? 0
                while true {
                    let consumed = LockedValue<Int64>(0)
                    blocking { consumed.set((try? await ledger.hello(clientId: clientId).lastMutationId) ?? 0) }
                    if consumed.get() >= last { break }
                    SyncEngine.pause(.milliseconds(5))
                }
            }
            throw SyncError.unreachable("connection dropped by the test")
        }
        let report = try await ann.sync(daemon)
        #expect(faults.value >= 1)
        #expect(report.pending == 0 && report.openConflicts == 0)
        let server = try await daemon.records()
        #expect(server.count == 2)
        #expect(server[expense.id]?.expense.amount == 1500 && server[expense.id]?.version == 2)
        #expect(server[added.id]?.version == 1)
        #expect(try ann.live() == liveExpenses(server))
        let summary = try await ledger.summary(SummaryQuery())
        #expect(summary.summary.totals == [CurrencyTotal(currency: .usd, amount: 2200, count: 2)])
        await daemon.stop()
    }

    @Test func daemonRestartedMidSessionClientsContinue() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann", persistent: true), bob = try TestClient("bob")
        try ann.add(100, "a")
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        try ann.add(200, "b")
        let restarts = Counter()
        ann.dependencies.faultInjection = { point, _ in
            guard point == .pushWritten, restarts.increment() == 1 else { return }
            blocking { try? await daemon.restart() }
        }
        try await ann.sync(daemon)
        #expect(restarts.value >= 1)
        try bob.add(300, "c")
        try await bob.sync(daemon)
        try await daemon.restart()
        try await ann.sync(daemon)
        let server = liveExpenses(try await daemon.records())
        #expect(server.count == 3)
        #expect(try ann.live() == server && bob.live() == server)
        await daemon.stop()
    }

    @Test func wrongTokenIsUnauthorizedAndUnreachableKeepsTheQueue() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann")
        try ann.add(100, "a")
        var engine = SyncEngine(ledger: ann.ledger, remote: RemoteConfiguration(server: daemon.remote.server, ledger: "default", token: "wrong"))
        engine.configuration.attempts = 1
        #expect(throws: SyncError.self) { try engine.sync() }
        await daemon.stop()
        let unreachable = RemoteConfiguration(server: try LoopbackListener.deadAddress(), ledger: "default", token: daemon.token)
        engine = SyncEngine(ledger: ann.ledger, remote: unreachable)
        engine.configuration.attempts = 2
        engine.configuration.initialBackoff = .milliseconds(1)
        #expect {
            try engine.sync()
        } throws: { error in
            if case SyncError.unreachable = error { return true } else { return false }
        }
        #expect(try ann.ledger.store.pendingCount() == 1)
    }
}

extension SyncEngine.Report {
    static func upToDate(cursor: Int64) -> Self {
        var report = Self()
        report.cursor = cursor
        return report
    }
}

/// A counter shared with a fault hook.
final class Counter: @unchecked Sendable {
    // @unchecked Sendable: guarded by `lock`.
    private let lock = NSLock()
    private var count = 0
    func increment() -> Int { lock.withLock { count += 1; return count } }
    var value: Int { lock.withLock { count } }
}

/// A value set from another task.
final class LockedValue<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: guarded by `lock`.
    private let lock = NSLock()
    private var value: T
    init(_ value: T) { self.value = value }
    func set(_ newValue: T) { lock.withLock { value = newValue } }
    func get() -> T { lock.withLock { value } }
}
