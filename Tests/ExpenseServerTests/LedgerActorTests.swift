import LedgerTestSupport
import TestSupport
import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite
import Synchronization
import Testing
@testable import ExpenseServer

/// The ``Ledger`` actor: group commit, durability across reopen, failure handling, watchers.
@Suite struct LedgerActorTests {
    @Test func concurrentPushesShareCommitsAndAreAllDurable() async throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let ledgers = try LedgerDirectory(dataDirectory: directory, defaultCurrency: .usd)
        let token = try String(contentsOfFile: directory + "/default.token", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let ledger = try #require(ledgers.authenticate(ledger: "default", token: token))
        let ids = (0..<100).map { _ in UUID() }
        let results = try await withThrowingTaskGroup(of: PushResult.self) { group in
            for id in ids {
                group.addTask { try await ledger.push(clientId: UUID(), items: [putItem(1, id, base: 0, lunch())]) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 100)
        let seqs = results.compactMap { result -> Int64? in
            if case .applied(1, let seq) = result.results[0].status { return seq }
            return nil
        }
        #expect(Set(seqs) == Set(1...100))
        let commits = await ledger.commitCount
        #expect(commits < 100, "100 concurrent pushes took \(commits) commits")
        #expect(ledger.head == 100)
        await ledgers.close()

        let reopened = try LedgerDirectory(dataDirectory: directory, defaultCurrency: .usd)
        #expect(reopened.createdDefaultTokenPath == nil)
        let again = try #require(reopened.authenticate(ledger: "default", token: token))
        let pulled = try await again.pull(PullRequest(since: 0, limit: 1000))
        #expect(Set(pulled.changes.map(\.expense.id)) == Set(ids))
        #expect(try await again.summary(SummaryQuery()).summary.totals.first?.count == 100)
        await reopened.close()
    }

    @Test func pushesOfOneClientAreSerialisedInOrder() async throws {
        let ledger = Ledger(name: "t", currency: .usd, store: InMemoryLedgerStore())
        let clientId = UUID()
        // Two pushes handed over back to back, the network front's way (the completion form): the second continues
        // the first's numbering, so it applies only when the ledger takes them in the order they were submitted.
        let results = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[[MutationStatus]], any Error>) in
            let collected = Mutex<[Int: [MutationStatus]]>([:])
            for (index, range) in [(0, 1...3), (1, 4...6)] {
                ledger.push(clientId: clientId, items: range.map { putItem(Int64($0), UUID(), base: 0, lunch()) }, credential: nil) { result in
                    switch result {
                    case .failure(let error): continuation.resume(throwing: error)
                    case .success(let pushed):
                        let done = collected.withLock { all -> [[MutationStatus]]? in
                            all[index] = pushed.results.map(\.status)
                            return all.count == 2 ? [all[0] ?? [], all[1] ?? []] : nil
                        }
                        if let done { continuation.resume(returning: done) }
                    }
                }
            }
        }
        let seqs = results.joined().compactMap { status -> Int64? in
            if case .applied(_, let seq) = status { seq } else { nil }
        }
        #expect(seqs.count == 6, "every mutation applied, none saw a gap: \(results)")
        #expect(seqs == seqs.sorted() && Set(seqs).count == 6, "applied in submission order: \(seqs)")
        #expect(try await ledger.hello(clientId: clientId).lastMutationId == 6)
        await ledger.close()
    }

    @Test func aFailedFsyncStopsWritesUntilReopen() async throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let path = directory + "/t.sqlite"
        let faults = StoreFaults()
        let ledger = Ledger(name: "t", currency: .usd, store: try SQLiteLedgerStore(path: path, name: "t", currency: .usd, faults: faults))
        let clientId = UUID()
        _ = try await ledger.push(clientId: clientId, items: [putItem(1, UUID(), base: 0, lunch())])
        faults.inject { point in
            point == .commit ? SQLiteError(code: .ioerrFsync, message: "fsync failed", path: path) : nil
        }
        await #expect { try await ledger.push(clientId: clientId, items: [putItem(2, UUID(), base: 0, lunch())]) } throws: {
            ($0 as? LedgerError)?.reason == "storage_failed"
        }
        faults.inject(nil)
        await #expect { try await ledger.push(clientId: clientId, items: [putItem(2, UUID(), base: 0, lunch())]) } throws: {
            ($0 as? LedgerError)?.reason == "ledger_failed"
        }
        #expect(try await ledger.pull(PullRequest()).changes.count == 1)  // reads still work
        await ledger.close()

        let reopened = Ledger(name: "t", currency: .usd, store: try SQLiteLedgerStore(path: path, name: "t", currency: .usd))
        #expect(try await reopened.hello(clientId: clientId) == (1, 1))
        let retry = try await reopened.push(clientId: clientId, items: [putItem(2, UUID(), base: 0, lunch())])
        #expect(retry.results[0].status == .applied(version: 1, seq: 2))
        await reopened.close()
    }

    @Test func aFullDiskRefusesThePushAndRecoversWhenSpaceReturns() async throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let path = directory + "/t.sqlite"
        let faults = StoreFaults()
        let ledger = Ledger(name: "t", currency: .usd, store: try SQLiteLedgerStore(path: path, name: "t", currency: .usd, faults: faults))
        let clientId = UUID()
        faults.inject { point in
            point == .write ? SQLiteError(code: .full, message: "database or disk is full", path: path) : nil
        }
        await #expect { try await ledger.push(clientId: clientId, items: [putItem(1, UUID(), base: 0, lunch())]) } throws: {
            ($0 as? LedgerError)?.reason == "storage_full"
        }
        #expect(ledger.head == 0)
        faults.inject(nil)
        let retry = try await ledger.push(clientId: clientId, items: [putItem(1, UUID(), base: 0, lunch())])
        #expect(retry.results[0].status == .applied(version: 1, seq: 1))
        await ledger.close()
    }

    @Test func watchersHearEveryAdvance() async throws {
        let ledger = Ledger(name: "t", currency: .usd, store: InMemoryLedgerStore())
        let (stream, continuation) = AsyncStream<Int64>.makeStream()
        let id = await ledger.watch { continuation.yield($0) }
        let clientId = UUID()
        _ = try await ledger.push(clientId: clientId, items: [putItem(1, UUID(), base: 0, lunch())])
        _ = try await ledger.push(clientId: clientId, items: [putItem(1, UUID(), base: 0, lunch())])  // duplicate: no advance
        _ = try await ledger.push(clientId: clientId, items: [putItem(2, UUID(), base: 0, lunch())])
        await ledger.unwatch(id)
        _ = try await ledger.push(clientId: clientId, items: [putItem(3, UUID(), base: 0, lunch())])
        continuation.finish()
        var heads: [Int64] = []
        for await head in stream { heads.append(head) }
        #expect(heads == [1, 2])
        await ledger.close()
        await #expect(throws: LedgerError.ledgerClosed) { try await ledger.pull(PullRequest()) }
    }

    /// ``Ledger/head``, read without waiting for the ledger's thread, is the store's head once a push is answered.
    @Test func theHeadFollowsEveryCommit() async throws {
        let ledger = Ledger(name: "t", currency: .usd, store: InMemoryLedgerStore())
        #expect(ledger.head == 0)
        let clientId = UUID()
        let pushed = try await ledger.push(clientId: clientId, items: [putItem(1, UUID(), base: 0, lunch()),
                                                                        putItem(2, UUID(), base: 0, lunch())])
        #expect(pushed.cursor == 2)
        #expect(ledger.head == 2, "the head is stored before the push is answered")
        #expect(try await ledger.hello(clientId: clientId).cursor == 2)
        await ledger.close()
    }
}
