import TestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Syncing through a list of addresses of one ledger (docs/usage.md, "Several addresses"): a dead address is passed over,
/// the one reached is tried first next time, an address of another ledger is refused and never mixed, and a push
/// whose answer was lost at one address is settled exactly once through another.
@Suite(.serialized) struct FailoverSyncTests {
    /// What the engine logged, across the thread it ran on.
    final class Log: Sendable {
        let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var passedOver: [String] { lines.withLock { $0.filter { $0.contains("trying the next address") } } }
    }

    /// How often the daemon acknowledged each change as applied.
    final class Applied: Sendable {
        let counts = Mutex<[UUID: Int]>([:])
    }

    func engine(_ client: TestClient, _ daemon: TestDaemon, _ log: Log) -> SyncEngine {
        var dependencies = client.dependencies
        dependencies.shuffle = { $0 }  // the order written
        var engine = client.engine(daemon, dependencies: dependencies)
        engine.configuration.log = { log.append($0) }
        return engine
    }

    @Test func aDeadFirstAddressIsPassedOverAndTheOneReachedIsTriedFirstNextTime() async throws {
        let daemon = try TestDaemon()
        let live = "127.0.0.1:\(daemon.port)", dead = try LoopbackListener.deadAddress()
        let ann = try TestClient("ann", persistent: true)
        ann.remote = RemoteConfiguration(server: "\(dead),\(live)", ledger: "default", token: daemon.token)
        try ann.add(1250, "food")
        let first = Log()
        let report = try await onOwnThread { [engine = engine(ann, daemon, first)] in try engine.sync() }
        #expect(report.pushed == 1 && report.pending == 0)
        #expect(first.passedOver.count == 1 && first.passedOver[0].hasPrefix(dead), "\(first.lines.withLock { $0 })")
        #expect(try ann.ledger.store.metaValue(.lastServer) == live)

        // The next command starts at the address that worked (RemoteConfiguration.resolve reads it back).
        ann.remote?.preferredAddress = try ann.ledger.store.metaValue(.lastServer)
        try ann.add(300, "bus")
        let second = Log()
        let again = try await onOwnThread { [engine = engine(ann, daemon, second)] in try engine.sync() }
        #expect(again.pushed == 1)
        #expect(second.passedOver.isEmpty, "\(second.lines.withLock { $0 })")
        #expect(try await daemon.records().count == 2)
        await daemon.stop()
    }

    @Test func anAddressOfAnotherLedgerIsRefusedAndNeverMixed() async throws {
        let daemon = try TestDaemon()
        let impostor = try ImpostorDaemon()
        defer { impostor.stop() }
        let live = "127.0.0.1:\(daemon.port)"
        let ann = try TestClient("ann", persistent: true)
        ann.remote = RemoteConfiguration(server: live, ledger: "default", token: daemon.token)
        try ann.add(1250, "food")
        try await ann.sync(daemon)
        let bound = try ann.ledger.store.metaValue(.syncedLedgerId)

        // The impostor first: refused, the sync goes on through the daemon of this ledger.
        ann.remote = RemoteConfiguration(server: "\(impostor.address),\(live)", ledger: "default", token: daemon.token)
        try ann.add(300, "bus")
        let log = Log()
        let report = try await onOwnThread { [engine = engine(ann, daemon, log)] in try engine.sync() }
        #expect(report.pushed == 1)
        #expect(log.passedOver.count == 1 && log.passedOver[0].contains("other_ledger"), "\(log.lines.withLock { $0 })")
        #expect(try ann.ledger.store.metaValue(.syncedLedgerId) == bound)
        #expect(try ann.ledger.store.metaValue(.lastServer) == live)

        // Only the impostor (and a dead address) left: other_ledger, and nothing changes in the cache.
        ann.remote = RemoteConfiguration(server: "\(try LoopbackListener.deadAddress()),\(impostor.address)", ledger: "default", token: daemon.token)
        try ann.add(400, "tea")
        let before = try ann.ledger.store.pendingMutations(limit: 100)
        let refused = engine(ann, daemon, Log())
        await #expect(throws: SyncError.self) { try await onOwnThread { [refused] in _ = try refused.sync() } }
        do { _ = try await onOwnThread { [refused] in try refused.sync() } } catch let error as SyncError {
            #expect(error.code == "other_ledger", "\(error)")
        }
        #expect(try ann.ledger.store.pendingMutations(limit: 100) == before)
        #expect(try ann.ledger.store.metaValue(.syncedLedgerId) == bound)
        #expect(try ann.ledger.store.metaValue(.lastServer) == live)
        // `remote set` asks every address of a list: the impostor is found before anything is stored.
        await #expect(throws: SyncError.self) { try await onOwnThread { [refused] in _ = try refused.checkRemote() } }
        #expect(try await daemon.records().count == 2)
        await daemon.stop()
    }

    /// The connections of `summary --server`, `stats --server` and `history` (``SyncConnection``'s list form) pass
    /// over an address that reports another ledger id than the cache's, and refuse it when it is the only one.
    @Test func aServerQueryPassesOverAnAddressOfAnotherLedger() async throws {
        let daemon = try TestDaemon()
        let impostor = try ImpostorDaemon()
        defer { impostor.stop() }
        let live = "127.0.0.1:\(daemon.port)"
        let bound = try #require(try daemon.ledger.identity).ledgerId
        var remote = RemoteConfiguration(server: "\(impostor.address),\(live)", ledger: "default", token: daemon.token)
        remote.boundLedgerId = bound
        remote.preferredAddress = impostor.address  // tried first
        let reached = try await onOwnThread { [remote] in
            let connection = try SyncConnection(remote: remote, clientId: UUID(), clientName: "query")
            defer { connection.close() }
            return (connection.address.description, connection.hello.identity?.ledgerId)
        }
        #expect(reached.0 == live && reached.1 == bound)
        remote.server = impostor.address
        let alone = remote
        await #expect(throws: SyncError.self) {
            try await onOwnThread { [alone] in _ = try SyncConnection(remote: alone, clientId: UUID(), clientName: "query") }
        }
        await daemon.stop()
    }

    /// A daemon of this ledger whose storage is down (it greets, then answers every request −32007
    /// `storage_unavailable`, as a daemon on a stopped PostgreSQL does): the push fails there, nothing was
    /// acknowledged, and the sync moves on to the next address within the same `expense sync`.
    @Test func aDaemonWithoutItsStorageIsPassedOverMidSync() async throws {
        let daemon = try TestDaemon()
        let identity = try #require(try daemon.ledger.identity)
        let down = try ImpostorDaemon(ledgerId: identity.ledgerId, epoch: identity.epoch, failing: "storage_unavailable")
        defer { down.stop() }
        let live = "127.0.0.1:\(daemon.port)"
        let ann = try TestClient("ann", persistent: true)
        ann.remote = RemoteConfiguration(server: "\(down.address),\(live)", ledger: "default", token: daemon.token)
        try ann.add(1250, "food")
        try ann.add(300, "bus")
        let log = Log()
        let report = try await onOwnThread { [engine = engine(ann, daemon, log)] in try engine.sync() }
        #expect(report.pushed == 2 && report.pending == 0, "\(report)")
        #expect(log.lines.withLock { $0 }.contains { $0.contains("cannot reach its storage") }, "\(log.lines.withLock { $0 })")
        #expect(try ann.ledger.store.metaValue(.lastServer) == live)
        #expect(try await daemon.records().count == 2)
        await daemon.stop()
    }

    /// Two addresses of one ledger (two proxies in front of one daemon, as two daemons on one PostgreSQL database
    /// would be): the first applies a push and its answer is lost; the sync moves on to the second, where
    /// `hello`'s lastMutationId and the duplicate answers settle it: every change applied once, none doubled.
    @Test func aPushWhoseAnswerWasLostIsSettledExactlyOnceThroughTheNextAddress() async throws {
        let daemon = try TestDaemon()
        let first = try AnswerDroppingProxy(forwardingTo: daemon.port), second = try AnswerDroppingProxy(forwardingTo: daemon.port)
        defer { first.stop(); second.stop() }
        let ann = try TestClient("ann", persistent: true)
        ann.remote = RemoteConfiguration(server: "\(first.address),\(second.address)", ledger: "default", token: daemon.token)
        let applied = Applied()
        ann.dependencies.onApplied = { entry, _ in applied.counts.withLock { $0[entry.id, default: 0] += 1 } }
        let added = try (1...3).map { try ann.add(Int64($0) * 100, "food", note: "n\($0)") }
        first.dropNextPushAnswer()
        let log = Log()
        let report = try await onOwnThread { [engine = engine(ann, daemon, log)] in try engine.sync() }
        #expect(first.droppedCount == 1)
        #expect(report.pushed == 3 && report.pending == 0 && report.openConflicts == 0, "\(report)")
        #expect(try ann.ledger.store.metaValue(.lastServer) == second.address)
        let records = try await daemon.records()
        #expect(records.count == 3 && records.values.allSatisfy { $0.version == 1 }, "\(records)")
        #expect(Set(records.keys) == Set(added.map(\.id)))
        let counts = applied.counts.withLock { $0 }
        #expect(counts.count == 3 && counts.values.allSatisfy { $0 == 1 }, "\(counts)")
        await daemon.stop()
    }
}
