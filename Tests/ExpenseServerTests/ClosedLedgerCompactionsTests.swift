import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing
@testable import ExpenseServer

/// A compaction round's ledgers that were not open: compacted through their storage one after another, unless a
/// request opens one first; opening one that is being compacted waits for it. Driven by semaphores, not sleeps.
@Suite struct ClosedLedgerCompactionsTests {
    @Test func aLedgerOpenedBeforeTheWalkReachesItIsHandedBackAndOneBeingCompactedIsWaitedFor() async throws {
        try await onOwnThread {
            let compactions = ClosedLedgerCompactions()
            let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
            let compacted = Mutex<[String]>([]), lines = Mutex<[String]>([])
            let round = ClosedLedgerCompactions.Round(cutoff: 42, keepDays: 1) { line in lines.withLock { $0.append(line) } }
            compactions.begin(["a", "b"], round) { name, cutoff in
                #expect(cutoff == 42)
                if name == "a" {
                    started.signal()
                    release.wait()
                }
                compacted.withLock { $0.append(name) }
                return (1, 0, 0)
            }
            started.wait()  // `a` is being compacted through its storage

            // `b` is opened before the walk reaches it: its compaction is handed to the opener, the walk skips it.
            #expect(compactions.opened("b")?.cutoff == 42)
            // Opening `a` waits until its compaction ends, and gets nothing to do.
            let opener = DispatchSemaphore(value: 0), handedBack = Mutex<Bool?>(nil)
            DispatchQueue.global().async {
                handedBack.withLock { $0 = compactions.opened("a") != nil }
                opener.signal()
            }
            #expect(opener.wait(timeout: .now() + .milliseconds(200)) == .timedOut, "opening `a` did not wait for its compaction")
            release.signal()
            opener.wait()
            #expect(handedBack.withLock { $0 } == false)
            #expect(compacted.withLock { $0 } == ["a"])
            // A ledger never in the round has nothing handed back.
            #expect(compactions.opened("c") == nil)
            #expect(lines.withLock { $0 }.count == 1)
        }
    }
}
