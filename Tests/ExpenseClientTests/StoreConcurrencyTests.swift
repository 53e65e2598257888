@testable import ExpenseClient
import TestSupport
import ExpenseCore
import ExpenseProtocol
import Foundation
import Synchronization
import Testing

/// Several store objects on one file, as several `expense` processes hold them (docs/reliability.md, "Many
/// commands on one home"): each write re-reads under the writer lock, each read sees the others' commits.
@Suite struct StoreConcurrencyTests {
    static let persistent = CacheStoreKind.allCases.filter(\.isPersistent)

    private func draft(_ note: String) -> ExpenseDraft {
        ExpenseDraft(amount: 100, currency: "USD", category: "food", date: "2026-03-01", note: note)
    }

    private func notes(_ store: any ExpenseStore) throws -> Set<String> {
        Set(try store.expenses(matching: ExpenseFilter()).map(\.note))
    }

    @Test(arguments: persistent)
    func interleavedWritersOnOneFileLoseNothing(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let first = LocalLedger(store: try kind.open(in: directory))
        let second = LocalLedger(store: try kind.open(in: directory))
        #expect(try first.store.clientId() == second.store.clientId(), "two opens of a new cache made two clients")
        try first.add(draft("a"))
        try second.add(draft("b"))
        try first.add(draft("c"))
        #expect(try notes(second.store) == ["a", "b", "c"], "a read missed another store's write")
        #expect(try second.store.hasUnsent(kinds: []))
        let edited = try second.edit(try second.find(String(try #require(first.list().first { $0.note == "c" }).idString.prefix(8))),
                                     changes: ExpenseDraft(note: "c2"))
        #expect(edited.note == "c2")
        try first.add(draft("d"))
        let reopened = try kind.open(in: directory)
        #expect(try notes(reopened) == ["a", "b", "c2", "d"])
        #expect(try reopened.pendingCount() == 4)
    }

    /// Waits on a thread of its own: blocking the cooperative pool would starve other suites' in-process daemons.
    @Test(arguments: persistent)
    func writersOnThreadsOfTheirOwnLoseNothing(kind: CacheStoreKind) async throws {
        try await onOwnThread { try Self.writeFromFourThreads(kind: kind) }
    }

    private static func writeFromFourThreads(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        _ = try kind.open(in: directory)
        let group = DispatchGroup()
        let failures = FailureLog()
        for thread in 0..<4 {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let ledger = LocalLedger(store: try kind.open(in: directory))
                    for index in 0..<5 { try ledger.add(ExpenseDraft(amount: 1, currency: "USD", category: "food",
                                                                     date: "2026-03-01", note: "t\(thread)-\(index)")) }
                } catch {
                    failures.append("\(error)")
                }
            }.start()
        }
        group.wait()
        #expect(failures.all.isEmpty)
        let store = try kind.open(in: directory)
        #expect(try store.liveCount() == 20)
        #expect(try store.pendingCount() == 20)
    }

    /// A first sync loads in bulk (indexes dropped); an `add` from another process meanwhile must work, and the
    /// loading process must notice and carry on record by record.
    @Test func anAddDuringAnotherProcesssBulkLoadWorks() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/cache.sqlite"
        let loader = try SQLiteExpenseStore(path: path)
        let other = LocalLedger(store: try SQLiteExpenseStore(path: path))
        let loading = LocalLedger(store: loader)
        func record(_ seq: Int64) throws -> Record {
            Record(expense: try ExpenseValidator.validate(ExpenseDraft(id: UUID().uuidString.lowercased(), amount: seq, currency: "USD",
                                                                       category: "food", date: "2026-03-01", note: "pulled-\(seq)")),
                   version: 1, seq: seq, deleted: false)
        }
        #expect(try loader.beginBulkLoad())
        try loading.apply(pulled: [try record(1), try record(2)], cursor: 2)
        let added = try other.add(draft("local"))
        try loading.apply(pulled: [try record(3)], cursor: 3)
        try loader.endBulkLoad()
        let reopened = try SQLiteExpenseStore(path: path)
        #expect(try notes(reopened) == ["pulled-1", "pulled-2", "pulled-3", "local"])
        #expect(try reopened.pendingMutations(limit: 10).map(\.id) == [added.id])
        #expect(try reopened.metaValue(.bulkLoad) == nil)
        #expect(try reopened.metaValue(.pullCursor) == "3")
    }

    @Test func aSecondSyncOfOneCacheIsRefusedUntilTheFirstEnds() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteExpenseStore(path: directory.path + "/cache.sqlite")
        let other = try SQLiteExpenseStore(path: directory.path + "/cache.sqlite")
        let held = try SyncLock.acquire(for: store)
        #expect(throws: SyncLockError.alreadyRunning(pid: getpid())) { _ = try SyncLock.acquire(for: other) }
        held.release()
        let again = try SyncLock.acquire(for: other)
        again.release()
        // Memory stores have nothing to share.
        _ = try SyncLock.acquire(for: InMemoryExpenseStore())
    }
}

/// Errors met on other threads, for the test's thread to check.
final class FailureLog: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}
