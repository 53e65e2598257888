import TestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import Foundation
import Testing

/// Budget and rule conflicts listed and settled like expense conflicts (`expense conflicts`, `resolve --mine/--theirs`).
@Suite struct DataConflictResolveTests {
    /// The laptop and the phone change the same budget's amount offline; the phone syncs second and conflicts.
    static func conflicted() async throws -> (TestDaemon, TestClient, TestClient, Budget) {
        let daemon = try TestDaemon()
        let laptop = try TestClient("laptop", persistent: true), phone = try TestClient("phone", persistent: true)
        let budget = try BudgetSyncStoryTests.food(30_000)
        try laptop.ledger.put(.budget, id: budget.id, fields: budget.fields)
        try await laptop.sync(daemon)
        try await phone.sync(daemon)
        var laptopBudget = budget, phoneBudget = budget
        let march = try #require(CalendarDay("2026-03-01"))
        laptopBudget.amounts = budget.settingAmount(40_000, from: march)
        phoneBudget.amounts = budget.settingAmount(45_000, from: march)
        try laptop.ledger.put(.budget, id: budget.id, fields: laptopBudget.fields)
        try phone.ledger.put(.budget, id: budget.id, fields: phoneBudget.fields)
        try await laptop.sync(daemon)
        #expect(try await phone.sync(daemon).newConflicts == 1)
        return (daemon, laptop, phone, budget)
    }

    static func amount(_ client: TestClient, _ budget: Budget) throws -> Int64? {
        let shown = try #require(try client.data.record(id: budget.id))
        return try LedgerDataValidator.budget(id: budget.id, fields: shown.fields).amounts.last?.amount
    }

    @Test("a budget conflict has both sides; --mine sends mine on top of the daemon's version and every machine ends with it")
    func mine() async throws {
        let (daemon, laptop, phone, budget) = try await Self.conflicted()
        let conflict = try #require(try phone.data.conflictDetails().first)
        #expect(conflict.kind == .budget && conflict.id == budget.id && conflict.theirs.version == 2)
        #expect(conflict.mine?["amounts"] != nil && conflict.mine?["amounts"] != conflict.theirs.fields["amounts"])
        try phone.ledger.resolve(conflict, .mine)
        #expect(try phone.data.conflictDetails().isEmpty)
        #expect(try Self.amount(phone, budget) == 45_000)
        #expect(try await phone.sync(daemon).pushed == 1)
        try await laptop.sync(daemon)
        #expect(try Self.amount(laptop, budget) == 45_000)
        await daemon.stop()
    }

    @Test("--theirs drops the conflict and my change: nothing is sent and the daemon's amount stays")
    func theirs() async throws {
        let (daemon, laptop, phone, budget) = try await Self.conflicted()
        let conflict = try #require(try phone.data.conflictDetails().first)
        try phone.ledger.resolve(conflict, .theirs)
        #expect(try phone.data.conflictDetails().isEmpty && (phone.ledger.pendingCount() == 0))
        #expect(try Self.amount(phone, budget) == 40_000)
        #expect(try await phone.sync(daemon).pushed == 0)
        try await laptop.sync(daemon)
        #expect(try Self.amount(laptop, budget) == 40_000)
        await daemon.stop()
    }

    @Test("--mine of a budget change that met another machine's removal restores the budget with the change on top of its last fields")
    func mineRestoresWhatTheOtherMachineRemoved() async throws {
        let daemon = try TestDaemon()
        let laptop = try TestClient("laptop", persistent: true), phone = try TestClient("phone", persistent: true)
        let budget = try BudgetSyncStoryTests.food(30_000, rollover: .positive)
        try laptop.ledger.put(.budget, id: budget.id, fields: budget.fields)
        try await laptop.sync(daemon)
        try await phone.sync(daemon)
        #expect(try laptop.ledger.deleteRecord(id: budget.id))
        try await laptop.sync(daemon)
        // Offline, the phone changes the amount only: its change carries `amounts` alone.
        var changed = budget
        changed.amounts = budget.settingAmount(45_000, from: try #require(CalendarDay("2026-03-01")))
        try phone.ledger.put(.budget, id: budget.id, fields: changed.fields)
        #expect(try await phone.sync(daemon).newConflicts == 1)
        let conflict = try #require(try phone.data.conflictDetails().first)
        #expect(conflict.theirs.deleted && conflict.mine.map { Set($0.keys) } == ["amounts"])

        try phone.ledger.resolve(conflict, .mine)
        #expect(try phone.data.conflictDetails().isEmpty)
        #expect(try Self.amount(phone, budget) == 45_000)
        #expect(try await phone.sync(daemon).pushed == 1)
        try await laptop.sync(daemon)
        let restored = try #require(try laptop.data.record(id: budget.id))
        #expect(!restored.deleted)
        let fields = try LedgerDataValidator.budget(id: budget.id, fields: restored.fields)
        #expect(fields == changed, "the budget's other fields are those it had when it was removed")
        await daemon.stop()
    }
}
