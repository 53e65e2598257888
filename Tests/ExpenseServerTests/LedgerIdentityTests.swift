import LedgerTestSupport
import TestSupport
import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite
import Testing
@testable import ExpenseServer

/// Protocol.md §5.7: every ledger has a `ledgerId` made at creation and an `epoch`, kept in its own database; a
/// backup keeps the id and starts a new epoch at its head; a restore keeps the id and starts a new epoch.
@Suite struct LedgerIdentityTests {
    @Test func aLedgerKeepsItsIdAndEpochAcrossReopens() async throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let first = try LedgerDirectory(dataDirectory: directory, defaultCurrency: .usd)
        let token = try String(contentsOfFile: directory + "/default.token", encoding: .utf8).trimmingCharacters(in: .newlines)
        let firstLedger = try #require(first.authenticate(ledger: "default", token: token))
        let identity = try #require(firstLedger.identity)
        #expect(identity.epochCursor == 0)
        let other = try first.addLedger(name: "other", currency: .usd)
        let otherLedger = try #require(first.authenticate(ledger: "other", token: other))
        let otherIdentity = try #require(otherLedger.identity)
        #expect(otherIdentity.ledgerId != identity.ledgerId)
        await first.close()
        let again = try LedgerDirectory(dataDirectory: directory, defaultCurrency: .usd)
        let reopened = try #require(again.authenticate(ledger: "default", token: token))
        #expect(reopened.identity == identity)
        await again.close()
    }

    @Test func aLedgerMadeBeforeIdentitiesGetsOneOnFirstOpenAndKeepsIt() async throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let path = directory + "/default.sqlite"
        do { _ = try SQLiteLedgerStore(path: path, name: "default", currency: .usd, token: "t") }
        do {
            let connection = try SQLiteConnection(path: path, mode: .readWrite)
            try connection.execute("DELETE FROM meta WHERE key IN ('ledger_id', 'epoch', 'epoch_cursor')")
        }
        let made = try SQLiteLedgerStore(path: path, name: "default", currency: .usd).identity
        #expect(made.epochCursor == 0)
        #expect(try SQLiteLedgerStore(path: path, name: "default", currency: .usd).identity == made)
    }

    @Test func aBackupKeepsTheIdAndStartsANewEpochAtItsHead() async throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let ledgers = try LedgerDirectory(dataDirectory: directory + "/data", defaultCurrency: .usd)
        let token = try String(contentsOfFile: directory + "/data/default.token", encoding: .utf8).trimmingCharacters(in: .newlines)
        let ledger = try #require(ledgers.authenticate(ledger: "default", token: token))
        _ = try await ledger.push(clientId: UUID(), items: [putItem(1, UUID(), base: 0, lunch()), putItem(2, UUID(), base: 0, lunch())])
        try ledgers.backup(ledger: "default", to: directory + "/backup.sqlite")
        let copy = try SQLiteLedgerStore(path: directory + "/backup.sqlite", name: "x", currency: .usd).identity
        let live = try #require(ledger.identity)
        #expect(copy.ledgerId == live.ledgerId)
        #expect(copy.epoch != live.epoch)
        #expect(copy.epochCursor == 2)
        await ledgers.close()
    }

    @Test func restoreKeepsTheIdGivesANewEpochAndRefusesAnotherLedger() async throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let data = directory + "/data"
        var ledgers: LedgerDirectory? = try LedgerDirectory(dataDirectory: data, defaultCurrency: .usd)
        let token = try String(contentsOfFile: data + "/default.token", encoding: .utf8).trimmingCharacters(in: .newlines)
        let ledger = try #require(ledgers?.authenticate(ledger: "default", token: token))
        let live = try #require(ledger.identity)
        _ = try await ledger.push(clientId: UUID(), items: [putItem(1, UUID(), base: 0, lunch())])
        try ledgers?.backup(ledger: "default", to: directory + "/backup.sqlite")
        _ = try await ledger.push(clientId: UUID(), items: [putItem(1, UUID(), base: 0, lunch())])
        let otherToken = try #require(ledgers).addLedger(name: "other", currency: .usd)
        _ = otherToken
        try ledgers?.backup(ledger: "other", to: directory + "/other.sqlite")
        await ledgers?.close()
        ledgers = nil

        // (Refused while a daemon holds the directory's lock: RestoreCommandTests, with real processes. In this
        // process a child spawned by another test may briefly share the lock's file description.)
        // A backup of another ledger, or no backup at all, is refused and nothing changes.
        #expect(throws: LedgerError.self) {
            _ = try LedgerDirectory.restore(dataDirectory: data, ledger: "default", from: directory + "/other.sqlite")
        }
        #expect(throws: LedgerError.self) {
            _ = try LedgerDirectory.restore(dataDirectory: data, ledger: "default", from: directory + "/nothing.sqlite")
        }

        let report = try Self.restoreRetryingOwnLock(data: data, from: directory + "/backup.sqlite")
        #expect(report.identity.ledgerId == live.ledgerId)
        #expect(report.identity.epoch != live.epoch)
        #expect(report.identity.epochCursor == 1 && report.head == 1 && report.records == 1)
        let kept = try #require(report.replacedPath)
        #expect(try SQLiteLedgerStore(path: kept, name: "default", currency: .usd).head == 2)

        let reopened = try LedgerDirectory(dataDirectory: data, defaultCurrency: .usd)
        let restored = try #require(reopened.authenticate(ledger: "default", token: token))
        #expect(restored.identity == report.identity)
        #expect(restored.head == 1)
        #expect(reopened.ledgers().map(\.name) == ["default", "other"])
        await reopened.close()
    }

    /// `LedgerDirectory.restore`, again while the lock is held by this very process: a child that another test
    /// spawns at the moment an earlier restore held the lock keeps its open file description (and so the flock)
    /// until the child's exec closes it. Any other holder is an error at once.
    private static func restoreRetryingOwnLock(data: String, from file: String) throws -> LedgerDirectory.RestoreReport {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            do {
                return try LedgerDirectory.restore(dataDirectory: data, ledger: "default", from: file)
            } catch LedgerError.dataDirectoryInUse(_, let pid) where pid == getpid() && ContinuousClock.now < deadline {
                usleep(10_000)
            }
        }
    }
}
