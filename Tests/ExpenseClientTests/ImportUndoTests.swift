import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport

/// `expense undo --last` after an import: the whole import, as one bounded journal entry (``ImportJournal``).
@Suite(.serialized) struct ImportUndoTests {
    private func rows(_ count: Int, category: String = "bank") throws -> [ImportRow] {
        var csv = "date,amount,currency,category,note\n"
        for index in 1...count { csv += "2026-01-\(String(format: "%02d", 1 + index % 28)),\(index),USD,\(category),row \(index)\n" }
        return try CSVImporter.rows(from: csv, options: ImportOptions(), defaultCurrency: .usd)
    }

    @Test(arguments: CacheStoreKind.allCases)
    func undoLastAfterAnImportUndoesAllItsRowsAsOneCommand(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try kind.open(in: directory))
        let kept = try ledger.journaledAdd(ExpenseDraft(amount: 5, currency: "USD", category: "x", date: "2026-03-01"))
        try ledger.importRows(try rows(3))
        let journal = try ledger.journal()
        #expect(journal.map(\.command) == ["add", "import"] && journal.last?.rows == 3)
        let outcome = try #require(try ledger.undoImport(at: journal.count - 1))
        #expect(outcome == ImportUndoOutcome(deleted: 3, alreadyGone: 0))
        // Never sent: the rows simply go, with their queued creations; the earlier add stays.
        #expect(try ledger.list().map(\.id) == [kept.id] && ledger.pendingCount() == 1)
        #expect(try ledger.journal().last?.undone == true)
        #expect(try ledger.store.metaValue(.lastImport) == nil)
        #expect(try ledger.undoImport(at: journal.count - 1) == nil)  // not twice
    }

    @Test func aLargeImportIsOneSmallJournalEntryAndItsIdsLeaveWithIt() throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try CacheStoreKind.sqlite.open(in: directory))
        try ledger.importRows(try rows(5_000))
        #expect(try ledger.journal().count == 1)
        let journalBytes = try #require(try ledger.store.metaValue(.undoJournal)).utf8.count
        #expect(journalBytes < 1_000, "\(journalBytes) bytes")  // the ids are kept apart, once
        #expect(try ledger.store.metaValue(.lastImport)?.utf8.count ?? 0 > 5_000 * 36)
        // Fifty later commands push the import out of the journal: its ids go too.
        for day in 1...JournalEntry.capacity {
            try ledger.journaledAdd(ExpenseDraft(amount: 1, currency: "USD", category: "y", date: "2026-04-\(String(format: "%02d", 1 + day % 28))"))
        }
        #expect(try ledger.journal().count == JournalEntry.capacity && ledger.journal().allSatisfy { $0.command == "add" })
        #expect(try ledger.store.metaValue(.lastImport) == nil)
    }

    @Test func onlyTheLatestImportKeepsItsIds() throws {
        let directory = try TemporaryDirectory()
        let ledger = LocalLedger(store: try CacheStoreKind.sqlite.open(in: directory))
        try ledger.importRows(try rows(2, category: "first"))
        try ledger.importRows(try rows(2, category: "second"))
        #expect(try ledger.undoImport(at: 0) == nil)
        #expect(try ledger.list().count == 4)
        #expect(try ledger.undoImport(at: 1) == ImportUndoOutcome(deleted: 2, alreadyGone: 0))
        #expect(try ledger.list().allSatisfy { $0.category == "first" })
    }

    @Test func undoingASyncedImportDeletesItsRowsAndARowSomeoneChangedIsAConflict() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann"), bob = try TestClient("bob")
        try ann.ledger.importRows(try rows(4))
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        let changed = try #require(try bob.live().values.first)
        try bob.edit(changed.id, ExpenseDraft(note: "bob's"))
        try await bob.sync(daemon)
        try bob.delete(try #require(try bob.live().keys.first { $0 != changed.id }))
        try await bob.sync(daemon)
        try await ann.sync(daemon)
        let journal = try ann.ledger.journal()
        #expect(try ann.ledger.undoImport(at: journal.count - 1) == ImportUndoOutcome(deleted: 3, alreadyGone: 1))
        let report = try await ann.sync(daemon)
        #expect(report.pushed == 2 && report.newConflicts == 1, "\(report)")
        // Bob's edit is kept on the daemon, shown to Ann as a conflict; the two untouched rows are gone everywhere.
        let server = liveExpenses(try await daemon.records())
        #expect(server.count == 1 && server[changed.id]?.note == "bob's")
        try await bob.sync(daemon)
        #expect(try bob.live() == server)
        await daemon.stop()
    }
}
