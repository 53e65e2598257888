import LedgerTestSupport
import TestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import Foundation
import Testing

/// Budgets synced like expenses (Protocol.md §10), between caches of real machines through an in-process daemon.
@Suite struct BudgetSyncStoryTests {
    static func food(_ amount: Int64, rollover: BudgetRollover = .none) throws -> Budget {
        let start = try #require(CalendarDay("2026-01-01"))
        return Budget(category: "food", currency: try #require(Currency(code: "EUR")), period: .month, start: start,
                      rollover: rollover, amounts: [BudgetAmount(from: start, amount: amount)])
    }

    @Test("the same budget set offline on two machines is one budget; a different amount is a conflict, kept with both sides")
    func sameBudgetTwoMachines() async throws {
        let daemon = try TestDaemon()
        let laptop = try TestClient("laptop", persistent: true), phone = try TestClient("phone", persistent: true)
        let laptopData = try LedgerDataCache(store: laptop.ledger.store), phoneData = try LedgerDataCache(store: phone.ledger.store)
        let budget = try Self.food(30_000)
        try laptop.ledger.put(.budget, id: budget.id, fields: budget.fields)
        try phone.ledger.put(.budget, id: budget.id, fields: budget.fields)
        #expect(try await laptop.sync(daemon).pushed == 1)
        let phoneReport = try await phone.sync(daemon)
        #expect(phoneReport.pushed == 1 && phoneReport.newConflicts == 0)
        let onDaemon = try await daemon.ledger.pull(PullRequest(since: 0, limit: 100, kinds: [.budget]))
        #expect(onDaemon.dataChanges.count == 1 && onDaemon.dataChanges[0].version == 1)
        #expect(try phone.ledger.pendingCount() == 0 && laptop.ledger.pendingCount() == 0)

        // Both change the amount offline, to different values: the second to sync is told of a conflict.
        var laptopBudget = budget, phoneBudget = budget
        laptopBudget.amounts = budget.settingAmount(40_000, from: try #require(CalendarDay("2026-03-01")))
        phoneBudget.amounts = budget.settingAmount(45_000, from: try #require(CalendarDay("2026-03-01")))
        try laptop.ledger.put(.budget, id: budget.id, fields: laptopBudget.fields)
        try phone.ledger.put(.budget, id: budget.id, fields: phoneBudget.fields)
        #expect(try await laptop.sync(daemon).pushed == 1)
        let conflicted = try await phone.sync(daemon)
        #expect(conflicted.newConflicts == 1 && conflicted.openConflicts == 1)
        #expect(try phoneData.conflictDetails().map(\.id) == [budget.id])
        // The phone shows the daemon's side until the person sets it again.
        let shown = try #require(try phoneData.record(id: budget.id))
        #expect(try LedgerDataValidator.budget(id: budget.id, fields: shown.fields).amounts.last?.amount == 40_000)
        // Setting it again sends it on top of the daemon's version: applied, and the laptop pulls it.
        try phone.ledger.put(.budget, id: budget.id, fields: phoneBudget.fields)
        #expect(try await phone.sync(daemon).pushed == 1)
        _ = try await laptop.sync(daemon)
        let onLaptop = try #require(try laptopData.record(id: budget.id))
        #expect(try LedgerDataValidator.budget(id: budget.id, fields: onLaptop.fields).amounts.last?.amount == 45_000)
        #expect(onLaptop.baseVersion == 3)
        await daemon.stop()
    }

    @Test("a removed budget is removed everywhere; the expense sync beside it is unchanged")
    func removal() async throws {
        let daemon = try TestDaemon()
        let laptop = try TestClient("laptop", persistent: true), phone = try TestClient("phone", persistent: true)
        let laptopData = try LedgerDataCache(store: laptop.ledger.store), phoneData = try LedgerDataCache(store: phone.ledger.store)
        let budget = try Self.food(30_000)
        try laptop.ledger.put(.budget, id: budget.id, fields: budget.fields)
        _ = try laptop.add(1250, "food")
        let first = try await laptop.sync(daemon)
        #expect(first.pushed == 2)
        let pulled = try await phone.sync(daemon)
        #expect(pulled.pulled == 2)
        #expect(try phoneData.records(.budget).count == 1)
        #expect(try phone.ledger.deleteRecord(id: budget.id))
        _ = try await phone.sync(daemon)
        _ = try await laptop.sync(daemon)
        #expect(try laptopData.records(.budget).isEmpty)
        #expect(try laptop.live().count == 1)
        await daemon.stop()
    }

    @Test("after the daemon is restored from a backup that forgot this machine's ids, queued changes are numbered again and what it lost is sent again")
    func renumberedAfterRestore() async throws {
        let daemon = try TestDaemon()
        let laptop = try TestClient("laptop", persistent: true)
        _ = try await laptop.sync(daemon)
        let backup = try daemon.backup()
        let food = try Self.food(30_000)
        try laptop.ledger.put(.budget, id: food.id, fields: food.fields)
        #expect(try await laptop.sync(daemon).pushed == 1)  // mutationId 1, consumed
        try await daemon.restore(from: backup)  // the daemon forgets it
        var rent = try Self.food(90_000)
        rent.target = .category("rent")
        try laptop.ledger.put(.budget, id: rent.id, fields: rent.fields)
        let report = try await laptop.sync(daemon)
        #expect(report.pushed == 2 && report.rejected == 0, "\(report)")
        #expect(try laptop.ledger.pendingCount() == 0)
        // The budget the restored daemon lost is healed like an expense: sent again, not dropped.
        let onDaemon = try await daemon.ledger.pull(PullRequest(since: 0, limit: 100, kinds: [.budget]))
        #expect(Set(onDaemon.dataChanges.map(\.id)) == [food.id, rent.id])
        await daemon.stop()
    }
}
