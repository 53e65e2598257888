import ExpenseCore
import ExpenseProtocol
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import ExpenseServer

/// A served SQLite ledger's WAL is copied into its file off the ledger's thread (``WALCheckpointer``;
/// docs/reliability.md §1): checkpoints run on their own thread and connection, the WAL stays bounded even when
/// they are stuck or fail, and nothing committed is lost.
@Suite(.offTheCooperativePool) struct WALCheckpointTests {
    /// Holds the first call at a fault point until `release` (later calls go on), or fails every call.
    private final class Gate: Sendable {
        let points: Set<StoreFaultPoint>
        let calls = Mutex(0)
        let firstThread = Mutex<pthread_t?>(nil)
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let failing: Bool

        init(_ points: Set<StoreFaultPoint>, failing: Bool = false) {
            self.points = points
            self.failing = failing
        }

        var hook: @Sendable (StoreFaultPoint) -> (any Error)? {
            { @Sendable point in
                guard self.points.contains(point) else { return nil }
                let number = self.calls.withLock { count -> Int in
                    count += 1
                    return count
                }
                if self.failing { return DiskGone() }
                guard number == 1 else { return nil }
                self.firstThread.withLock { $0 = pthread_self() }
                self.entered.signal()
                self.release.wait()
                return nil
            }
        }
    }

    struct DiskGone: Error {}

    private static func store(_ directory: TemporaryDirectory, threshold: Int, faults: StoreFaults? = nil) throws -> SQLiteLedgerStore {
        let store = try SQLiteLedgerStore(path: directory.file("t.sqlite"), name: "t", currency: .usd, faults: faults)
        store.checkpointInBackground(threshold: threshold, name: "t")
        return store
    }

    /// A store checkpointing in the background with `gate` at its fault points, and an engine over it.
    private static func gated(_ directory: TemporaryDirectory, threshold: Int, _ gate: Gate) throws
        -> (SQLiteLedgerStore, WALCheckpointer, LedgerEngine) {
        let faults = StoreFaults()
        faults.inject(gate.hook)
        let store = try store(directory, threshold: threshold, faults: faults)
        let checkpointer = try #require(store.checkpointer)
        return (store, checkpointer, LedgerEngine(store: store, currency: .usd))
    }

    /// Pushes `count` new expenses one push at a time; the WAL's frames after each.
    private static func push(_ engine: LedgerEngine, _ store: SQLiteLedgerStore, count: Int) throws -> [Int] {
        let client = UUID()
        var frames: [Int] = []
        for mutationId in 1...Int64(count) {
            let result = try engine.push(clientId: client, items: [putItem(mutationId, UUID(), base: 0, lunch())])
            #expect(result.results.count == 1)
            frames.append(store.walFrames)
        }
        return frames
    }

    private static func reopenedCount(_ directory: TemporaryDirectory) throws -> Int {
        let engine = LedgerEngine(store: try SQLiteLedgerStore(path: directory.file("t.sqlite"), name: "t", currency: .usd), currency: .usd)
        return try allRecords(engine).count
    }

    @Test func checkpointsRunOnAThreadOfTheirOwnAndTheDataIsKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let gate = Gate([.backgroundCheckpoint])
        do {
            let (store, checkpointer, engine) = try Self.gated(directory, threshold: 4, gate)
            _ = try Self.push(engine, store, count: 8)
            // The background checkpoint started and waits at the gate, while this thread goes on committing.
            try #require(gate.entered.wait(timeout: .now() + 20) == .success, "a background checkpoint started")
            #expect(pthread_equal(try #require(gate.firstThread.withLock { $0 }), pthread_self()) == 0)
            _ = try Self.push(engine, store, count: 2)
            gate.release.signal()
            #expect(eventually { checkpointer.backgroundCount >= 1 })
            #expect(store.takeBackgroundFailure() == nil)
        }
        #expect(try Self.reopenedCount(directory) == 10)
    }

    @Test func aStuckBackgroundCheckpointLeavesTheWALBoundedByTheLedgersOwn() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let gate = Gate([.backgroundCheckpoint])
        do {
            let (store, checkpointer, engine) = try Self.gated(directory, threshold: 2, gate)
            let frames = try Self.push(engine, store, count: 60)
            #expect(gate.calls.withLock { $0 } == 1, "one background checkpoint, held")
            // Past twice the limit the ledger's thread checkpoints by itself and the next commit restarts the WAL
            // (a push writes several frames; the first commit into a new file, a page of each table it touches,
            // is left out of the bound).
            #expect(frames.dropFirst().max() ?? 0 <= 2 * checkpointer.limit + 16, "the WAL's frames after each push: \(frames)")
            #expect(frames.last ?? 0 < frames.max() ?? 0, "the WAL restarted: \(frames)")
            gate.release.signal()
        }
        #expect(try Self.reopenedCount(directory) == 60)
    }

    @Test func aFailingCheckpointIsReportedAndLosesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let gate = Gate([.backgroundCheckpoint, .checkpoint], failing: true)
        do {
            let (store, _, engine) = try Self.gated(directory, threshold: 2, gate)
            _ = try Self.push(engine, store, count: 40)
            #expect(eventually { gate.calls.withLock { $0 } >= 2 })
            let failure = try #require(store.takeBackgroundFailure())
            #expect(failure.hasPrefix("checkpoint failed"), "\(failure)")
        }
        #expect(try Self.reopenedCount(directory) == 40)
    }

    @Test func aDatabaseInMemoryKeepsSQLitesOwnCheckpoint() throws {
        let store = try SQLiteLedgerStore(path: ":memory:", name: "t", currency: .usd)
        store.checkpointInBackground(name: "t")
        #expect(store.checkpointer == nil)
    }
}
