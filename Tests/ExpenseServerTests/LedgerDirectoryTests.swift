import LedgerTestSupport
import TestSupport
import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
@testable import ExpenseServer

/// Ledgers on disk: first start, tokens, isolation, damaged files, backup.
@Suite struct LedgerDirectoryTests {
    @Test func firstStartCreatesDefaultWithAPrivateToken() async throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.file("data")
        defer { temporary.remove() }
        let ledgers = try LedgerDirectory(dataDirectory: directory, defaultCurrency: try #require(Currency(code: "JPY")))
        #expect(ledgers.createdDefaultTokenPath == directory + "/default.token")
        #expect(try permissions(directory) == 0o700)
        #expect(try permissions(directory + "/default.token") == 0o600)
        #expect(try permissions(directory + "/default.sqlite") == 0o600)
        let token = try String(contentsOfFile: directory + "/default.token", encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))
        #expect(ledgers.ledgers().map(\.name) == ["default"])
        #expect(ledgers.ledgers().map(\.currency.code) == ["JPY"])
        let ledger = try #require(ledgers.authenticate(ledger: "default", token: token))
        #expect(ledger.currency.code == "JPY")
        #expect(ledgers.authenticate(ledger: "default", token: String(token.dropLast()) + "x") == nil)
        #expect(ledgers.authenticate(ledger: "default", token: "") == nil)
        #expect(ledgers.authenticate(ledger: "other", token: token) == nil)
        #expect(ledgers.authenticate(ledger: "../default", token: token) == nil)
        await ledgers.close()
    }

    /// Each way of opening creates only what it allows: `.nothing` nothing (a missing directory is an error),
    /// `.directory` the directory, `.later` nothing until ``LedgerDirectory/openDeferred(defaultCurrency:)``.
    @Test func openingCreatesOnlyWhatItIsAllowedTo() async throws {
        let temporary = try TemporaryDirectory("ledger-tests"), root = temporary.path
        defer { temporary.remove() }
        let missing = root + "/missing"
        #expect(throws: LedgerError.self) { try LedgerDirectory(dataDirectory: missing, creating: .nothing) }
        #expect(!FileManager.default.fileExists(atPath: missing))

        let later = try LedgerDirectory(dataDirectory: missing, creating: .later)
        #expect(later.ledgers().isEmpty && !FileManager.default.fileExists(atPath: missing))
        #expect(try later.openDeferred(defaultCurrency: .usd) == missing + "/default.token")
        #expect(try later.openDeferred(defaultCurrency: .usd) == nil)
        #expect(later.ledgers().map(\.name) == ["default"])
        #expect(try permissions(missing) == 0o700)
        await later.close()

        let fresh = root + "/fresh"
        let directory = try LedgerDirectory(dataDirectory: fresh, creating: .directory)
        #expect(directory.createdDefaultTokenPath == nil && directory.ledgers().isEmpty)
        _ = try directory.addLedger(name: "work", currency: .usd)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fresh).filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
                .sorted() == ["work.sqlite", "work.token"])
        await directory.close()

        // A directory with a ledger gets no `default`, whichever way it is opened.
        let reopened = try LedgerDirectory(dataDirectory: fresh, creating: .later)
        #expect(try reopened.openDeferred(defaultCurrency: .usd) == nil)
        // Nothing is opened until it is asked for (the daemon's start does not grow with the ledgers on disk).
        #expect(reopened.ledgers().isEmpty)
        #expect(reopened.ledger(named: "work")?.name == "work")
        #expect(reopened.ledgers().map(\.name) == ["work"])
        await reopened.close()
    }

    @Test func ledgersAreIsolated() async throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let ledgers = try LedgerDirectory(dataDirectory: directory, defaultCurrency: .usd)
        let defaultToken = try String(contentsOfFile: directory + "/default.token", encoding: .utf8).trimmingCharacters(in: .newlines)
        let homeToken = try ledgers.addLedger(name: "home", currency: try #require(Currency(code: "EUR")))
        #expect(homeToken != defaultToken)
        #expect(try permissions(directory + "/home.token") == 0o600)
        #expect(ledgers.authenticate(ledger: "home", token: defaultToken) == nil)
        #expect(ledgers.authenticate(ledger: "default", token: homeToken) == nil)
        let home = try #require(ledgers.authenticate(ledger: "home", token: homeToken))
        let work = try #require(ledgers.authenticate(ledger: "default", token: defaultToken))
        _ = try await home.push(clientId: UUID(), items: [putItem(1, UUID(), base: 0, lunch())])
        #expect(home.head == 1 && home.currency.code == "EUR")
        #expect(work.head == 0)
        #expect(throws: LedgerError.ledgerExists("home")) { try ledgers.addLedger(name: "home", currency: .usd) }
        #expect(throws: LedgerError.invalidLedgerName("Bad/Name")) { try ledgers.addLedger(name: "Bad/Name", currency: .usd) }
        #expect(ledgers.ledgers().map(\.name) == ["default", "home"])
        await ledgers.close()
    }

    @Test func aLedgerAddedByAnotherProcessIsFoundByName() async throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let daemon = try LedgerDirectory(dataDirectory: directory, defaultCurrency: .usd)
        let command = try LedgerDirectory(dataDirectory: directory, defaultCurrency: .usd)  // `expensed ledger add`
        #expect(command.createdDefaultTokenPath == nil)
        let token = try command.addLedger(name: "travel", currency: .usd)
        await command.close()
        #expect(throws: LedgerError.ledgerExists("travel")) { try daemon.addLedger(name: "travel", currency: .usd) }
        let travel = try #require(daemon.authenticate(ledger: "travel", token: token))
        _ = try await travel.push(clientId: UUID(), items: [putItem(1, UUID(), base: 0, lunch())])
        await daemon.close()
    }

    @Test(arguments: ["garbage", "damaged page"])
    func aDamagedDatabaseIsRefusedNamingTheFile(damage: String) async throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let ledgers = try LedgerDirectory(dataDirectory: directory, defaultCurrency: .usd)
        let token = try ledgers.addLedger(name: "broken", currency: .usd)
        let ledger = try #require(ledgers.authenticate(ledger: "broken", token: token))
        let items = (1...500).map { putItem(Int64($0), UUID(), base: 0, lunch(note: String(repeating: "n", count: 200))) }
        _ = try await ledger.push(clientId: UUID(), items: items)
        await ledgers.close()
        let path = directory + "/broken.sqlite"
        let handle = try #require(FileHandle(forWritingAtPath: path))
        if damage == "garbage" {
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: Data(repeating: 0x5a, count: 8192))
        } else {
            for page in 1..<12 {  // the headers of b-tree pages (the file header on page 1 stays intact)
                try handle.seek(toOffset: UInt64(4096 * page))
                try handle.write(contentsOf: Data(repeating: 0xff, count: 12))
            }
        }
        try handle.close()
        #expect { try LedgerDirectory(dataDirectory: directory, defaultCurrency: .usd) } throws: { error in
            guard let error = error as? LedgerError, case .damagedDatabase(let named, _) = error else { return false }
            return named == path && error.message.contains("broken.sqlite")
        }
    }

    @Test func onlineBackupCopiesTheLedger() async throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let ledgers = try LedgerDirectory(dataDirectory: directory, defaultCurrency: .usd)
        let token = try String(contentsOfFile: directory + "/default.token", encoding: .utf8).trimmingCharacters(in: .newlines)
        let ledger = try #require(ledgers.authenticate(ledger: "default", token: token))
        _ = try await ledger.push(clientId: UUID(), items: (1...10).map { putItem(Int64($0), UUID(), base: 0, lunch()) })
        let target = directory + "/copy/default.sqlite"
        try FileManager.default.createDirectory(atPath: directory + "/copy", withIntermediateDirectories: true)
        try ledgers.backup(ledger: "default", to: target)
        #expect(try permissions(target) == 0o600)  // it holds the token: as private as the ledger itself
        #expect(throws: LedgerError.backupTargetExists(target)) { try ledgers.backup(ledger: "default", to: target) }
        #expect(throws: LedgerError.unknownLedger("nope")) { try ledgers.backup(ledger: "nope", to: directory + "/x") }
        await ledgers.close()
        let copy = try LedgerDirectory(dataDirectory: directory + "/copy", defaultCurrency: .usd)
        let copied = try #require(copy.authenticate(ledger: "default", token: token))
        #expect(try await copied.pull(PullRequest()).changes.count == 10)
        await copy.close()
    }

    @Test func tokensAreLongAndCompareExactly() {
        let token = Token.generate()
        #expect(token.utf8.count == 64 && token != Token.generate())
        #expect(Token.matches(token, digest: Token.digest(token)))
        #expect(!Token.matches(token + "0", digest: Token.digest(token)))
        #expect(!Token.matches(String(token.prefix(63)), digest: Token.digest(token)))
    }
}

func permissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? Int ?? -1) & 0o777
}

func lunch(note: String) -> [String: JSONValue] { fields(amount: 1250, category: "food", date: "2026-11-30", note: note) }
