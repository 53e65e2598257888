import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// A daemon's start asks only whether the data directory holds a ledger (to make `default` in an empty one),
/// reading up to the first ledger file: the answer is the full listing's.
@Suite struct LedgerDirectoryScanTests {
    @Test func aDirectoryHoldsALedgerExactlyWhenItsListingNamesOne() throws {
        let directory = try TemporaryDirectory("ledger-scan")
        defer { directory.remove() }
        func touch(_ name: String) throws { try Data().write(to: URL(fileURLWithPath: directory.file(name))) }
        #expect(try !LedgerDirectory.hasLedger(in: directory.path))
        // Not ledgers: a token, the lock, a WAL, a file whose name is no ledger name.
        for name in ["home.token", "expensed.lock", "home.sqlite-wal", "Bad!.sqlite", ".sqlite"] { try touch(name) }
        #expect(try !LedgerDirectory.hasLedger(in: directory.path))
        #expect(try LedgerDirectory.ledgerNames(in: directory.path).isEmpty)
        try touch("home.sqlite")
        #expect(try LedgerDirectory.hasLedger(in: directory.path))
        #expect(try LedgerDirectory.ledgerNames(in: directory.path) == ["home"])
        #expect(throws: LedgerError.self) { try LedgerDirectory.hasLedger(in: directory.file("missing")) }
    }
}
