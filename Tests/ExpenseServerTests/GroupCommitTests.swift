import ExpenseCore
import ExpenseProtocol
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import ExpenseServer

/// Group commit while a commit is in flight (one fsync shared by every push that waited for it): pushes that arrive
/// while the ledger's thread is committing (and fsyncing) a group are answered only after a commit of their own,
/// and they share that next commit.
@Suite(.offTheCooperativePool) struct GroupCommitTests {
    private struct Answer: Sendable {
        /// Commits that had reached the store's commit point when the push was answered.
        var commitsSeen: Int
        var result: Result<PushResult, any Error>
    }

    /// What the fault hook (on the ledger's thread) and the completions share with the test.
    private final class Gate: Sendable {
        let commits = Mutex(0)
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let answers = Mutex<[Int: Answer]>([:])
        let answered = DispatchSemaphore(value: 0)

        /// The ledger's fault hook: counts the commits that reach the store's commit point, holds the first (as a
        /// slow fsync holds it) until `release` is signalled, and fails every later one with `later` (nil: they go on).
        func holdingFirstCommit(thenFailWith later: (any Error & Sendable)? = nil) -> @Sendable (StoreFaultPoint) -> (any Error)? {
            { @Sendable point in
                guard point == .commit else { return nil }
                let number = self.commits.withLock { count -> Int in
                    count += 1
                    return count
                }
                guard number == 1 else { return later }
                self.entered.signal()
                self.release.wait()
                return nil
            }
        }

        /// A push of one new expense `id` from a client of its own, its answer kept as `answers[index]`.
        func push(_ index: Int, _ id: UUID, to ledger: Ledger) {
            ledger.push(clientId: UUID(), items: [putItem(1, id, base: 0, lunch())], credential: nil) { result in
                self.answers.withLock { $0[index] = Answer(commitsSeen: self.commits.withLock { $0 }, result: result) }
                self.answered.signal()
            }
        }
    }

    @Test func pushesArrivingDuringACommitAreAnsweredAfterTheirOwnSharedCommit() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("t.sqlite")
        let faults = StoreFaults()
        let ledger = Ledger(name: "t", currency: .usd, store: try SQLiteLedgerStore(path: path, name: "t", currency: .usd, faults: faults))
        let gate = Gate()
        // The first group's commit is held until the late pushes are queued.
        faults.inject(gate.holdingFirstCommit())
        func push(_ index: Int, _ id: UUID) { gate.push(index, id, to: ledger) }
        let first = UUID()
        push(0, first)
        gate.entered.wait()  // the first group is committing on the ledger's thread
        let late = (1...5).map { _ in UUID() }
        for (offset, id) in late.enumerated() { push(offset + 1, id) }
        #expect(gate.answers.withLock { $0.isEmpty }, "nothing is answered while its commit is in flight")
        gate.release.signal()
        for _ in 0...late.count { gate.answered.wait() }

        let all = gate.answers.withLock { $0 }
        #expect(all[0]?.commitsSeen == 1)
        #expect(try all[0]?.result.get().cursor == 1)
        for index in 1...late.count {
            #expect(all[index]?.commitsSeen == 2, "push \(index) was answered after its own commit")
            // Its cursor is the head of the commit it shared with the other late pushes.
            #expect(try all[index]?.result.get().cursor == 6)
        }
        #expect(await ledger.commitCount == 2, "the five late pushes shared one commit")
        await ledger.close()

        let reopened = LedgerEngine(store: try SQLiteLedgerStore(path: path, name: "t", currency: .usd), currency: .usd)
        #expect(Set(try allRecords(reopened).map(\.expense.id)) == Set([first] + late))
    }

    /// The answers of a group come after its COMMIT (what any change to how answers are handed over must keep): each
    /// client's answers come in the order of its pushes, cursors never go back between groups, and `close()` returns
    /// only after every answer ran.
    @Test func answersComeInPushOrderPerClientAndCloseWaitsForThem() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ledger = Ledger(name: "t", currency: .usd,
                            store: try SQLiteLedgerStore(path: directory.file("t.sqlite"), name: "t", currency: .usd))
        let clients = (0..<4).map { _ in UUID() }
        let order = Mutex<[(client: Int, mutationId: Int64, cursor: Int64)]>([])
        let perClient = 60
        for mutationId in 1...Int64(perClient) {
            for (index, client) in clients.enumerated() {
                ledger.push(clientId: client, items: [putItem(mutationId, UUID(), base: 0, lunch())], credential: nil) { result in
                    let cursor = (try? result.get().cursor) ?? -1
                    order.withLock { $0.append((index, mutationId, cursor)) }
                }
            }
        }
        await ledger.close()  // nothing else waits: close itself must have let every answer run

        let answered = order.withLock { $0 }
        #expect(answered.count == clients.count * perClient)
        #expect(answered.allSatisfy { $0.cursor > 0 }, "every push was applied")
        for index in clients.indices {
            let ids = answered.filter { $0.client == index }.map(\.mutationId)
            #expect(ids == Array(1...Int64(perClient)), "client \(index)'s answers came in the order of its pushes")
        }
        #expect(zip(answered, answered.dropFirst()).allSatisfy { $0.cursor <= $1.cursor },
                "groups are answered in commit order")
    }

    /// A group whose COMMIT fails while the group before it is committed but not yet answered: the first
    /// group's pushes are acknowledged, none of the failed group's, and the file holds only the first group.
    @Test func aFailedCommitOfTheNextGroupNeverAcknowledgesItsPushes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("t.sqlite")
        let faults = StoreFaults()
        let ledger = Ledger(name: "t", currency: .usd, store: try SQLiteLedgerStore(path: path, name: "t", currency: .usd, faults: faults))
        let gate = Gate()
        struct DiskGone: Error {}
        faults.inject(gate.holdingFirstCommit(thenFailWith: DiskGone()))  // the second group's COMMIT fails
        func push(_ index: Int, _ id: UUID) { gate.push(index, id, to: ledger) }
        let first = UUID()
        push(0, first)
        gate.entered.wait()
        for index in 1...5 { push(index, UUID()) }
        gate.release.signal()
        for _ in 0...5 { gate.answered.wait() }

        let all = gate.answers.withLock { $0 }
        #expect(try all[0]?.result.get().cursor == 1)
        for index in 1...5 {
            #expect(throws: (any Error).self, "push \(index) of the failed group is not acknowledged") {
                try all[index]?.result.get()
            }
        }
        await ledger.close()
        let reopened = LedgerEngine(store: try SQLiteLedgerStore(path: path, name: "t", currency: .usd), currency: .usd)
        #expect(try allRecords(reopened).map(\.expense.id) == [first])
    }
}
