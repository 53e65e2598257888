import ExpenseProtocol
import Foundation
import Synchronization
import Testing
@testable import ExpenseServer

/// Ledgers share a bounded set of threads (``LedgerThreads``): more ledgers with work than threads are all served,
/// each ledger's items in the order queued and never two at once, and no more threads run than the limit.
@Suite struct LedgerThreadsTests {
    /// One executor's record of what ran on it.
    private final class Seen: Sendable {
        let rounds = Mutex<[Int]>([])
        let running = Atomic<Int>(0)
    }

    @Test("twenty executors on two threads: every item runs, in order per executor, one at a time per executor")
    func manyExecutorsShareFewThreads() {
        let threads = LedgerThreads(limit: 2, batch: 3)
        let executors = (0..<20).map { LedgerExecutor(name: "test-\($0)", threads: threads) }
        let seen = (0..<20).map { _ in Seen() }
        let busy = Atomic<Int>(0), mostBusy = Atomic<Int>(0), overlaps = Atomic<Int>(0)
        let done = DispatchGroup()
        for round in 0..<50 {
            for (index, executor) in executors.enumerated() {
                done.enter()
                executor.enqueue {
                    let mine = seen[index]
                    if mine.running.add(1, ordering: .sequentiallyConsistent).newValue != 1 { overlaps.add(1, ordering: .relaxed) }
                    let now = busy.add(1, ordering: .sequentiallyConsistent).newValue
                    _ = mostBusy.max(now, ordering: .relaxed)
                    mine.rounds.withLock { $0.append(round) }
                    busy.subtract(1, ordering: .sequentiallyConsistent)
                    mine.running.subtract(1, ordering: .sequentiallyConsistent)
                    done.leave()
                }
            }
        }
        done.wait()
        for index in 0..<20 { #expect(seen[index].rounds.withLock { $0 } == Array(0..<50), "executor \(index)") }
        #expect(overlaps.load(ordering: .relaxed) == 0, "an executor ran two items at once")
        #expect(mostBusy.load(ordering: .relaxed) <= 2)
        #expect(threads.threadCount <= 2)
    }

    @Test("the drained hook runs on the executor, after its items, each time it leaves a thread")
    func theDrainedHookRunsAfterTheItems() {
        let threads = LedgerThreads(limit: 1, batch: 2)
        let executor = LedgerExecutor(name: "test", threads: threads)
        let events = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        executor.whenDrained {
            executor.checkIsolated()  // stops the test process if the hook ran off the executor
            let drains = events.withLock { events in
                events.append("drained")
                return events.filter { $0 == "drained" }.count
            }
            if drains == 2 { done.signal() }
        }
        // The one thread is held by another executor until all three items are queued, so the batches are known.
        let gate = DispatchSemaphore(value: 0)
        LedgerExecutor(name: "blocker", threads: threads).enqueue { gate.wait() }
        for item in 0..<3 { executor.enqueue { events.withLock { $0.append("item \(item)") } } }
        gate.signal()
        done.wait()
        // Batches of two: the hook after the first two items, then after the last.
        #expect(events.withLock { $0 } == ["item 0", "item 1", "drained", "item 2", "drained"])
    }

    /// A ledger stuck in its commit (a slow fsync) holds one thread: another ledger's pushes are answered meanwhile.
    @Test("one ledger's stalled commit does not stop another ledger's pushes")
    func aStalledCommitHoldsOnlyItsLedger() {
        let gate = DispatchSemaphore(value: 0)
        let faults = StoreFaults()
        faults.inject { point in
            if point == .commit { gate.wait() }
            return nil
        }
        let stalledStore = InMemoryLedgerStore(faults: faults)
        let stalled = Ledger(name: "stalled", currency: .usd, store: stalledStore)
        let other = Ledger(name: "other", currency: .usd, store: InMemoryLedgerStore())
        let stalledDone = DispatchSemaphore(value: 0), otherDone = DispatchSemaphore(value: 0)
        let stalledApplied = Atomic<Bool>(false)
        stalled.push(clientId: UUID(), items: [putItem(1, UUID(), base: 0, lunch())], credential: nil) { result in
            if case .success = result { stalledApplied.store(true, ordering: .sequentiallyConsistent) }
            stalledDone.signal()
        }
        for number in 1...20 {  // more pushes than the ledger threads: each waits only for a free thread
            other.push(clientId: UUID(), items: [putItem(1, UUID(), base: 0, lunch())], credential: nil) { result in
                #expect(throws: Never.self) { try result.get() }
                if number == 20 { otherDone.signal() }
            }
        }
        otherDone.wait()
        let appliedWhileStalled = stalledApplied.load(ordering: .sequentiallyConsistent)
        #expect(!appliedWhileStalled, "the stalled ledger is still in its commit")
        gate.signal()
        stalledDone.wait()
        let appliedAfter = stalledApplied.load(ordering: .sequentiallyConsistent)
        #expect(appliedAfter)
    }
}
