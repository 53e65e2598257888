import LedgerTestSupport
import Dispatch
import ExpenseCore
import ExpenseProtocol
import Foundation
import Synchronization
import TestSupport
import Testing
@testable import ExpenseServer

/// Ledgers opened on demand and closed when unused: a closed ledger comes back with what it held, one a
/// connection holds is never closed, and past the bound the least recently used unused one goes first. The
/// sweep is driven with explicit instants (``OpenLedgers/closeUnused(now:closed:)``), never by waiting.
@Suite struct LedgerEvictionTests {
    /// The token of `name`, from the file `ledger add` wrote.
    private static func token(_ directory: String, _ name: String) throws -> String {
        try String(contentsOfFile: directory + "/\(name).token", encoding: .utf8).trimmingCharacters(in: .newlines)
    }

    /// The credential a `hello` would get: the connection holding it keeps the ledger in use.
    private static func hold(_ ledgers: LedgerDirectory, _ name: String, _ token: String) async throws -> Authentication {
        let result = await withCheckedContinuation { (done: CheckedContinuation<Result<Authentication?, LedgerError>, Never>) in
            ledgers.authenticate(ledger: name, token: token) { done.resume(returning: $0) }
        }
        return try #require(try result.get())
    }

    /// Runs a sweep at `now` and waits until the ledgers it closed are closed.
    private static func sweep(_ ledgers: LedgerDirectory, at now: ContinuousClock.Instant) async -> [String] {
        let names = ledgers.opened.closeUnused(now: now)
        await ledgers.opened.drain()
        return names
    }

    @Test func anUnusedLedgerIsClosedAfterItsIdleTimeAndComesBackWithWhatItHeld() async throws {
        let temporary = try TemporaryDirectory("eviction"), data = temporary.file("data")
        defer { temporary.remove() }
        _ = try LedgerDirectory.addLedger(dataDirectory: data, name: "home", currency: .usd)
        _ = try LedgerDirectory.addLedger(dataDirectory: data, name: "work", currency: .usd)
        let ledgers = try LedgerDirectory(dataDirectory: data, creating: .later)
        _ = try ledgers.openDeferred(defaultCurrency: .usd)
        ledgers.opened.limits = .init(idle: .seconds(60), maximum: nil)

        let home = try await Self.hold(ledgers, "home", try Self.token(data, "home"))
        let work = try await Self.hold(ledgers, "work", try Self.token(data, "work"))
        let id = UUID()
        _ = try await work.ledger.push(clientId: UUID(), items: [putItem(1, id, base: 0, lunch())])
        let workHead = work.ledger.head
        work.credential.released()  // the connection closed
        #expect(ledgers.ledgers().map(\.name) == ["home", "work"])

        let start = ContinuousClock.now
        #expect(await Self.sweep(ledgers, at: start) == [])  // `work` is seen unused from here on
        #expect(await Self.sweep(ledgers, at: start + .seconds(59)) == [])
        #expect(await Self.sweep(ledgers, at: start + .seconds(60)) == ["work"])
        #expect(ledgers.ledgers().map(\.name) == ["home"], "a ledger a connection holds was closed")
        // The closed ledger answers nothing more; a new `hello` opens it again with what it held.
        let again = try await Self.hold(ledgers, "work", try Self.token(data, "work"))
        #expect((again.ledger as? Ledger) !== (work.ledger as? Ledger))
        #expect(again.ledger.head == workHead && workHead == 1)
        let record = try await again.ledger.pull(PullRequest(since: 0)).changes.first
        #expect(record?.expense.id == id)
        again.credential.released()
        home.credential.released()
        await ledgers.close()
    }

    @Test func pastTheBoundTheLeastRecentlyUsedUnusedLedgerIsClosedAndOneInUseNever() async throws {
        let temporary = try TemporaryDirectory("eviction"), data = temporary.file("data")
        defer { temporary.remove() }
        for name in ["a", "b", "c"] { _ = try LedgerDirectory.addLedger(dataDirectory: data, name: name, currency: .usd) }
        let ledgers = try LedgerDirectory(dataDirectory: data, creating: .later)
        _ = try ledgers.openDeferred(defaultCurrency: .usd)
        ledgers.opened.limits = .init(idle: nil, maximum: 1)

        let a = try await Self.hold(ledgers, "a", try Self.token(data, "a"))
        a.credential.released()
        let b = try await Self.hold(ledgers, "b", try Self.token(data, "b"))  // `a` (unused) goes to make room
        await ledgers.opened.drain()
        #expect(ledgers.ledgers().map(\.name) == ["b"])
        // `b` is held: opening `c` goes past the bound rather than close it.
        let c = try await Self.hold(ledgers, "c", try Self.token(data, "c"))
        await ledgers.opened.drain()
        #expect(ledgers.ledgers().map(\.name) == ["b", "c"])
        c.credential.released()
        b.credential.released()
        #expect(await Self.sweep(ledgers, at: .now).count == 1)
        #expect(ledgers.ledgers().count == 1)
        await ledgers.close()
    }
}
