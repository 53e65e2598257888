import ExpenseCore
import ExpenseProtocol
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import ExpenseServer

/// A ledger whose COMMIT does not sync (``LedgerDurability/Mode/deferred(checkpointThreshold:)``, the daemon's
/// SQLite ledgers; docs/reliability.md §1): nothing is acknowledged or shown before the fdatasync that makes it
/// durable, a failed sync acknowledges nothing, `close()` answers everything, and checkpoints never hold a push.
@Suite(.offTheCooperativePool) struct DeferredDurabilityTests {
    /// Holds the first call at a fault point (on whichever thread makes it) until `release`; later calls go on,
    /// or fail with `later`.
    private final class Gate: Sendable {
        let point: StoreFaultPoint
        let calls = Mutex(0)
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        /// The thread of the first call.
        let firstThread = Mutex<pthread_t?>(nil)
        let failFirst: Bool

        init(_ point: StoreFaultPoint, failFirst: Bool = false) {
            self.point = point
            self.failFirst = failFirst
        }

        var hook: @Sendable (StoreFaultPoint) -> (any Error)? {
            { @Sendable point in
                guard point == self.point else { return nil }
                let number = self.calls.withLock { count -> Int in
                    count += 1
                    return count
                }
                guard number == 1 else { return nil }
                self.firstThread.withLock { $0 = pthread_self() }
                self.entered.signal()
                self.release.wait()
                return self.failFirst ? DiskGone() : nil
            }
        }
    }

    struct DiskGone: Error {}

    /// What the completions saw, in the order they ran.
    private final class Events: Sendable {
        let list = Mutex<[String]>([])
        let signal = DispatchSemaphore(value: 0)
        func add(_ event: String) {
            list.withLock { $0.append(event) }
            signal.signal()
        }
        func wait(_ count: Int) { for _ in 0..<count { signal.wait() } }
        var all: [String] { list.withLock { $0 } }
    }

    private static func ledger(_ directory: TemporaryDirectory, threshold: Int = WALCheckpointer.defaultThreshold) throws -> Ledger {
        let store = try SQLiteLedgerStore(path: directory.file("t.sqlite"), name: "t", currency: .usd)
        let ledger = Ledger(name: "t", currency: .usd, store: store, durability: .deferred(checkpointThreshold: threshold))
        #expect(ledger.durability != nil, "the test file is power-safe overwrite: the ledger defers its syncs")
        return ledger
    }

    /// Waits until everything queued for the ledger's thread so far has run (a job that reads nothing), and
    /// returns that thread.
    @discardableResult
    private static func drain(_ ledger: Ledger) -> pthread_t {
        let done = DispatchSemaphore(value: 0)
        let thread = Mutex<pthread_t?>(nil)
        ledger.perform { _ in
            thread.withLock { $0 = pthread_self() }
            done.signal()
        }
        done.wait()
        return thread.withLock { $0 } ?? pthread_self()
    }

    /// Whether `thread` is known and another than `other`.
    private static func isAnother(_ thread: pthread_t?, than other: pthread_t) -> Bool {
        guard let thread else { return false }
        return pthread_equal(thread, other) == 0
    }

    private static func push(_ ledger: Ledger, client: UUID = UUID(), _ mutationId: Int64 = 1, events: Events, label: String = "push") {
        ledger.push(clientId: client, items: [putItem(mutationId, UUID(), base: 0, lunch())]) { result in
            switch result {
            case .success(let pushed): events.add("\(label) \(pushed.cursor)")
            case .failure(let error): events.add("\(label) \((error as? LedgerError)?.reason ?? "\(error)")")
            }
        }
    }

    @Test func aGroupWaitingForItsSyncIsShownByNoReadPingHelloOrNotification() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ledger = try Self.ledger(directory)
        let events = Events()
        _ = await ledger.watch { head in events.add("changed \(head)") }
        let gate = Gate(.sync)
        await ledger.injectFault(gate.hook)
        let client = UUID()
        Self.push(ledger, client: client, events: events)
        gate.entered.wait()  // committed; its sync is held on the sync thread
        let ledgerThread = Self.drain(ledger)
        #expect(Self.isAnother(gate.firstThread.withLock { $0 }, than: ledgerThread), "the sync runs off the ledger's thread")
        #expect(ledger.headSnapshot == 0, "ping shows no head a crash could take back")
        #expect(events.all.isEmpty, "no answer and no `changed` before the sync returned")

        // Reads issued now are answered only after the group is durable, and then after its push's answer.
        ledger.pull(PullRequest(since: 0, limit: 100)) { result in
            events.add("pull \((try? result.get().changes.count) ?? -1)")
        }
        ledger.hello(clientId: client) { result in
            events.add("hello \((try? result.get().lastMutationId) ?? -1) \((try? result.get().cursor) ?? -1)")
        }
        gate.release.signal()
        events.wait(4)
        #expect(events.all == ["push 1", "changed 1", "pull 1", "hello 1 1"])
        #expect(ledger.headSnapshot == 1)
        await ledger.close()
    }

    @Test func aFailedSyncAnswersEveryWaitingPushStorageFailedAndAcknowledgesNothingLater() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ledger = try Self.ledger(directory)
        let events = Events()
        let gate = Gate(.sync, failFirst: true)
        await ledger.injectFault(gate.hook)
        Self.push(ledger, events: events, label: "first")
        gate.entered.wait()
        Self.push(ledger, events: events, label: "second")  // committed while the first group's sync is held
        Self.drain(ledger)
        #expect(events.all.isEmpty)
        gate.release.signal()  // the held sync fails
        events.wait(2)
        #expect(Set(events.all) == ["first storage_failed", "second storage_failed"])
        #expect(ledger.headSnapshot == 0)

        await ledger.injectFault(nil)
        Self.push(ledger, events: events, label: "third")
        events.wait(1)
        #expect(events.all.last == "third ledger_failed", "after a failed sync the ledger refuses writes")
        await #expect(throws: LedgerError.self, "and reads, which could show commits the file may not hold") {
            _ = try await ledger.pull(PullRequest(since: 0, limit: 100))
        }
        await ledger.close()
    }

    @Test func closeWithASyncInFlightAnswersEveryPushBeforeItReturns() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ledger = try Self.ledger(directory)
        let events = Events()
        let gate = Gate(.sync)
        await ledger.injectFault(gate.hook)
        let ids = (0..<3).map { _ in UUID() }
        for (index, id) in ids.enumerated() {
            ledger.push(clientId: UUID(), items: [putItem(1, id, base: 0, lunch())]) { result in
                events.add("push \(index) \((try? result.get().cursor) ?? -1)")
            }
            if index == 0 { gate.entered.wait() }
        }
        let closing = Task { await ledger.close() }
        gate.release.signal()
        await closing.value
        #expect(events.all.count == 3, "close() returned only after every push was answered")
        #expect(events.all.allSatisfy { !$0.hasSuffix("-1") })

        let reopened = LedgerEngine(store: try SQLiteLedgerStore(path: directory.file("t.sqlite"), name: "t", currency: .usd), currency: .usd)
        #expect(Set(try allRecords(reopened).map(\.expense.id)) == Set(ids))
    }

    @Test func aHeldCheckpointNeverHoldsAPushAndTheWALStaysBounded() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ledger = try Self.ledger(directory, threshold: 2)
        let gate = Gate(.checkpoint)
        await ledger.injectFault(gate.hook)
        let client = UUID()
        var frames: [Int] = []
        for mutationId in 1...Int64(40) {
            // Each push is answered while the first background checkpoint is held on its thread.
            let result = try await ledger.push(clientId: client, items: [putItem(mutationId, UUID(), base: 0, lunch())])
            #expect(result.cursor == mutationId)
            frames.append(await ledger.walFramesForTests())
        }
        #expect(gate.calls.withLock { $0 } == 1)
        #expect(Self.isAnother(gate.firstThread.withLock { $0 }, than: Self.drain(ledger)), "the checkpoint runs off the ledger's thread")
        let limit = try #require(ledger.durability).checkpointer.limit
        // With the background checkpoint stuck, the ledger's thread checkpoints past twice the limit: the WAL
        // starts again instead of growing with every push (a push writes several frames; the first commit into
        // the new file, which writes a page of each table it touches, is left out of the bound).
        #expect(frames.dropFirst().max() ?? 0 <= 2 * limit + 16, "the WAL's frames after each push: \(frames)")
        #expect(frames.last ?? 0 < frames.max() ?? 0, "the WAL restarted: \(frames)")
        gate.release.signal()
        await ledger.close()

        let reopened = LedgerEngine(store: try SQLiteLedgerStore(path: directory.file("t.sqlite"), name: "t", currency: .usd), currency: .usd)
        #expect(try allRecords(reopened).count == 40)
    }

    /// What a crash leaves of a ledger whose WAL was preallocated with zeros: the database and the WAL copied
    /// (no `-shm`: opening the copy runs SQLite's recovery over the WAL file itself).
    private static func recoveredCopy(_ directory: TemporaryDirectory, _ name: String) throws -> (ids: Set<UUID>, check: String?) {
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: directory.file("t.sqlite") + suffix, toPath: directory.file(name) + suffix)
        }
        let store = try SQLiteLedgerStore(path: directory.file(name), name: "t", currency: .usd)
        return (Set(try allRecords(LedgerEngine(store: store, currency: .usd)).map(\.expense.id)), try store.connection.check(full: true))
    }

    @Test func aWALPreallocatedWithZerosRecoversExactlyItsCommits() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let threshold = 64
        var ledger = try Self.ledger(directory, threshold: threshold)
        var ids: [UUID] = []
        let client = UUID()
        for mutationId in 1...Int64(5) {
            ids.append(UUID())
            _ = try await ledger.push(clientId: client, items: [putItem(mutationId, ids.last ?? UUID(), base: 0, lunch())])
        }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: directory.file("t.sqlite-wal"))[.size] as? Int)
        #expect(size >= 32 + threshold * (4096 + 24), "the WAL was grown to its threshold's size: \(size)")
        // Frames, then zeros: recovery replays the frames and stops at the zeros.
        let first = try Self.recoveredCopy(directory, "first.sqlite")
        #expect(first.ids == Set(ids))
        #expect(first.check == nil)
        await ledger.close()  // the WAL is folded in and deleted

        // Re-opened, a ledger nobody writes to keeps a small WAL; its first commit grows it again.
        ledger = try Self.ledger(directory, threshold: threshold)
        let idle = try #require(try FileManager.default.attributesOfItem(atPath: directory.file("t.sqlite-wal"))[.size] as? Int)
        #expect(idle < 32 + threshold * (4096 + 24), "not grown before the first commit: \(idle)")
        ids.append(UUID())
        _ = try await ledger.push(clientId: UUID(), items: [putItem(1, ids.last ?? UUID(), base: 0, lunch())])
        let again = try Self.recoveredCopy(directory, "again.sqlite")
        #expect(again.ids == Set(ids), "frames of the new WAL, then zeros")
        #expect(again.check == nil)
        await ledger.close()
    }
}

extension Ledger {
    /// The WAL's frames after the latest commit.
    func walFramesForTests() -> Int { (engine?.store as? SQLiteLedgerStore)?.walFrames ?? 0 }
}
