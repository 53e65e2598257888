import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import Foundation
import Testing

/// Dropping local changes with a real daemon: a rejected change, an edit of a synced expense, and one bank
/// file imported on two machines.
@Suite(.serialized) struct DiscardTests {
    static func largest(_ count: Int) throws -> [ImportRow] {
        try CSVImporter.rows(from: "date,amount,currency,category,note\n"
                             + String(repeating: "2026-02-01,90071992547409.91,USD,big,\n", count: count),
                             options: ImportOptions(), defaultCurrency: .usd)
    }

    @Test func aRejectedChangeIsDiscardedAndTheLocalViewIsTheServers() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann"), bob = try TestClient("bob", persistent: true)
        try ann.ledger.importRows(try Self.largest(1024))
        try await ann.sync(daemon)
        let rejected = try bob.add(2000, "food")
        let report = try await bob.sync(daemon)
        #expect(report.openRejections == 1)
        let dropped = try bob.ledger.discardRejected()
        #expect(dropped.map(\.id) == [rejected.id] && dropped.first?.entries.first?.rejection?.reason == "amount_overflow")
        #expect(try bob.ledger.pendingCount() == 0)
        #expect(try bob.live() == liveExpenses(try await daemon.records()))
        #expect(try bob.ledger.summary(SummaryQuery()).totals.first?.amount == 9_223_372_036_854_774_784)
        #expect(try bob.ledger.discardRejected().isEmpty)
        await daemon.stop()
    }

    @Test func discardingAnEditOfASyncedExpenseLeavesTheServersCopy() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann")
        let expense = try ann.add(500, "food")
        try await ann.sync(daemon)
        try ann.edit(expense.id, ExpenseDraft(amount: 700))
        try ann.delete(expense.id)
        #expect(throws: StoreError.idPrefixTooShort("abc")) { try ann.ledger.discard("abc") }
        // One prefix that matches nothing leaves the others' changes queued.
        #expect(throws: DiscardError.nothingPending("ffffffff")) {
            try ann.ledger.discard([expense.idString, "ffffffff"])
        }
        #expect(try ann.ledger.pendingCount() == 1)
        let dropped = try ann.ledger.discard(String(expense.idString.prefix(6)).uppercased())
        #expect(dropped.entries.map(\.type) == [.delete] && dropped.after?.expense == expense && dropped.after?.deleted == false)
        #expect(try ann.live() == [expense.id: expense])
        #expect(throws: DiscardError.nothingPending(expense.idString)) { try ann.ledger.discard(expense.idString) }
        let report = try await ann.sync(daemon)
        #expect(report.pushed == 0)
        #expect(liveExpenses(try await daemon.records()) == [expense.id: expense])
        await daemon.stop()
    }

    @Test func discardingABudgetChangeNamesItsKindAndShowsTheServersBudget() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann", persistent: true)
        let budget = try BudgetSyncStoryTests.food(30_000)
        try ann.ledger.put(.budget, id: budget.id, fields: budget.fields)
        try await ann.sync(daemon)
        var raised = budget
        raised.amounts = budget.settingAmount(40_000, from: try #require(CalendarDay("2026-03-01")))
        try ann.ledger.put(.budget, id: budget.id, fields: raised.fields)
        let fresh = Budget(category: "travel", currency: budget.currency, period: .month, start: budget.start, rollover: .none,
                           amounts: budget.amounts)
        try ann.ledger.put(.budget, id: fresh.id, fields: fresh.fields)

        let dropped = try ann.ledger.discard([UUIDText.lowercased(budget.id), UUIDText.lowercased(fresh.id)])
        #expect(dropped.map(\.kind) == [.budget, .budget] && dropped.map(\.entries.count) == [1, 1])
        #expect(dropped[0].dataAfter?.fields == budget.fields && dropped[0].dataAfter?.baseVersion == 1 && dropped[0].after == nil)
        #expect(dropped[1].dataAfter == nil && dropped[1].after == nil)  // the daemon never had it
        let data = try LedgerDataCache(store: ann.ledger.store)
        #expect(try data.records(.budget).map(\.fields) == [budget.fields])
        #expect(try ann.ledger.pendingCount() == 0)
        #expect(try await ann.sync(daemon).pushed == 0)
        await daemon.stop()
    }

    @Test("discarding a budget whose conflict is open drops this machine's side: the daemon's budget stays shown, nothing is sent")
    func discardingABudgetConflictKeepsTheDaemonsSide() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann", persistent: true), bob = try TestClient("bob", persistent: true)
        let budget = try BudgetSyncStoryTests.food(30_000)
        try ann.ledger.put(.budget, id: budget.id, fields: budget.fields)
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        var annBudget = budget, bobBudget = budget
        annBudget.amounts = budget.settingAmount(40_000, from: try #require(CalendarDay("2026-03-01")))
        bobBudget.amounts = budget.settingAmount(45_000, from: try #require(CalendarDay("2026-03-01")))
        try ann.ledger.put(.budget, id: budget.id, fields: annBudget.fields)
        try await ann.sync(daemon)
        try bob.ledger.put(.budget, id: budget.id, fields: bobBudget.fields)
        #expect(try await bob.sync(daemon).openConflicts == 1)

        let dropped = try bob.ledger.discard(String(UUIDText.lowercased(budget.id).prefix(8)))
        #expect(dropped.kind == .budget && dropped.dataAfter?.fields == annBudget.fields)
        let data = try LedgerDataCache(store: bob.ledger.store)
        #expect(try data.conflictDetails().isEmpty && bob.ledger.pendingCount() == 0)
        let report = try await bob.sync(daemon)
        #expect(report.pushed == 0 && report.openConflicts == 0, "\(report)")
        await daemon.stop()
    }

    @Test func oneFileImportedOnTwoMachinesConvergesToOneCopy() async throws {
        let daemon = try TestDaemon()
        let ann = try TestClient("ann"), bob = try TestClient("bob", persistent: true)
        let rows = try CSVImporter.rows(from: LocalLedgerImportTests.csv, options: ImportOptions(), defaultCurrency: .usd)
        try ann.ledger.importRows(rows)
        try bob.ledger.importRows(rows)
        try await ann.sync(daemon)
        let report = try await bob.sync(daemon)
        #expect(report.openRejections == 0 && report.newConflicts == 0 && report.pending == 0)
        let server = liveExpenses(try await daemon.records())
        #expect(server.count == 3)
        #expect(try bob.live() == server)
        try await ann.sync(daemon)
        #expect(try ann.live() == server)
        await daemon.stop()
    }
}
