import Synchronization
import SystemKit
import Testing

/// ``HeapReturn``: freed heap is given back once after a burst of work ends, never while work goes on, and
/// not again while the daemon stays idle.
@Suite struct HeapReturnTests {
    @Test func thePolicyTrimsOnceWhenATickFindsTheWorkStopped() {
        var policy = HeapReturn.Policy()
        // A transcript of ticks: the work count each tick reads, and whether it trims.
        let readings: [(UInt64, Bool)] = [
            (0, false),  // nothing done yet
            (3, false), (9, false), (14, false),  // a burst: the count moves every tick
            (14, true),  // the first tick with no new work trims
            (14, false), (14, false),  // idle: nothing more to give back
            (15, false), (15, true),  // one more group, then quiet: one more trim
        ]
        for (tick, (work, trims)) in readings.enumerated() {
            #expect(policy.tick(work: work) == trims, "tick \(tick) at work \(work)")
        }
    }

    final class Count: Sendable {
        let value = Mutex<UInt64>(0)
        func add() { value.withLock { $0 += 1 } }
        var now: UInt64 { value.withLock { $0 } }
    }

    @Test func ticksTrimThroughTheGivenFunctionOnceTheWorkStops() {
        let trims = Count(), work = Count()
        let heap = HeapReturn(trim: { trims.add() }, workDone: { work.now })
        #expect(!heap.tick())
        for _ in 0..<3 {
            work.add()
            #expect(!heap.tick(), "no trim while work goes on")
        }
        #expect(heap.tick())
        #expect(!heap.tick())
        #expect(trims.now == 1)
    }
}
