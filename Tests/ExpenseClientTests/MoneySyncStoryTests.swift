import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import Foundation
import Testing

/// Money is one value (Protocol.md §7.4): two people changing an expense's amount and its currency at the same
/// time get a conflict, never the digits of one with the currency of the other.
@Suite(.serialized) struct MoneySyncStoryTests {
    /// 5.00 EUR, synced by Ann and Bob.
    private func fiveEuros(_ daemon: TestDaemon) async throws -> (TestClient, TestClient, UUID) {
        let ann = try TestClient("ann", persistent: true), bob = try TestClient("bob")
        let expense = try ann.ledger.add(ExpenseDraft(amount: 500, currency: "EUR", category: "food",
                                                      date: "2026-03-01", note: ""))
        try await ann.sync(daemon)
        try await bob.sync(daemon)
        return (ann, bob, expense.id)
    }

    private func money(_ expense: Expense?) -> String {
        guard let expense else { return "none" }
        return "\(expense.amount) \(expense.currency.code)"
    }

    /// The seen story: Ann makes it 500 JPY (the same digits), Bob makes it 7.50 EUR. Whoever syncs second gets
    /// the conflict; `--mine` gives that person's whole pair; nobody ever sees 750 JPY.
    @Test(arguments: [true, false])
    func currencyAgainstAmountIsAConflict(annFirst: Bool) async throws {
        let daemon = try TestDaemon()
        let (ann, bob, id) = try await fiveEuros(daemon)
        try ann.edit(id, ExpenseDraft(amount: 500, currency: "JPY"))
        try bob.edit(id, ExpenseDraft(amount: 750))
        let (first, second) = annFirst ? (ann, bob) : (bob, ann)
        let (firstMoney, secondMoney) = annFirst ? ("500 JPY", "750 EUR") : ("750 EUR", "500 JPY")
        #expect(try await first.sync(daemon).pushed == 1)
        let report = try await second.sync(daemon)
        #expect(report.newConflicts == 1 && report.pushed == 0)
        #expect(money(liveExpenses(try await daemon.records())[id]) == firstMoney)
        // While the conflict is open, the second person's view shows theirs, whole.
        #expect(money(try second.live()[id]) == firstMoney)
        let conflict = try #require(try second.ledger.store.conflicts().first)
        // Shown as one line: the amount with its currency, on each side.
        let line = try #require(conflict.differences.first { $0.field == "amount" })
        #expect(line.mine == (annFirst ? "7.50 EUR" : "500 JPY") && line.theirs == (annFirst ? "500 JPY" : "7.50 EUR"))
        try second.ledger.resolve(conflict, .mine)
        #expect(money(try second.live()[id]) == secondMoney)
        #expect(try await second.sync(daemon).pushed == 1)
        try await first.sync(daemon)
        let server = liveExpenses(try await daemon.records())
        #expect(money(server[id]) == secondMoney)
        #expect(try ann.live() == server && bob.live() == server)
        await daemon.stop()
    }

    /// A change of the currency alone shows as the whole money of each side, as a change of the amount does.
    @Test func aConflictOverTheCurrencyAloneShowsBothSidesMoney() async throws {
        let daemon = try TestDaemon()
        let (ann, bob, id) = try await fiveEuros(daemon)
        try ann.edit(id, ExpenseDraft(amount: 900))
        try bob.edit(id, ExpenseDraft(currency: "GBP"))
        try await ann.sync(daemon)
        #expect(try await bob.sync(daemon).newConflicts == 1)
        let conflict = try #require(try bob.ledger.store.conflicts().first)
        #expect(conflict.differences.map(\.field) == ["amount"])
        let line = try #require(conflict.differences.first)
        #expect(line.mine == "5.00 GBP" && line.theirs == "9.00 EUR")
        await daemon.stop()
    }

    @Test func currencyAgainstCurrencyAndAmountAgainstAmountAreConflicts() async throws {
        let daemon = try TestDaemon()
        let (ann, bob, id) = try await fiveEuros(daemon)
        try ann.edit(id, ExpenseDraft(amount: 500, currency: "JPY"))
        try bob.edit(id, ExpenseDraft(amount: 500, currency: "GBP"))
        try await ann.sync(daemon)
        #expect(try await bob.sync(daemon).newConflicts == 1)
        try bob.ledger.resolve(try #require(try bob.ledger.store.conflicts().first), .theirs)
        try ann.edit(id, ExpenseDraft(amount: 800))
        try bob.edit(id, ExpenseDraft(amount: 900))
        try await ann.sync(daemon)
        #expect(try await bob.sync(daemon).newConflicts == 1)
        #expect(money(try bob.live()[id]) == "800 JPY")
        try bob.ledger.resolve(try #require(try bob.ledger.store.conflicts().first), .theirs)
        try await bob.sync(daemon)
        let server = liveExpenses(try await daemon.records())
        #expect(money(server[id]) == "800 JPY")
        #expect(try ann.live() == server && bob.live() == server)
        await daemon.stop()
    }

    @Test func moneyAndCategoryStillMerge() async throws {
        let daemon = try TestDaemon()
        let (ann, bob, id) = try await fiveEuros(daemon)
        try ann.edit(id, ExpenseDraft(amount: 500, currency: "JPY"))
        try bob.edit(id, ExpenseDraft(category: "travel"))
        try await ann.sync(daemon)
        let report = try await bob.sync(daemon)
        #expect(report.newConflicts == 0 && report.pushed == 1)
        try await ann.sync(daemon)
        let server = liveExpenses(try await daemon.records())
        #expect(money(server[id]) == "500 JPY" && server[id]?.category == "travel")
        #expect(try ann.live() == server && bob.live() == server)
        await daemon.stop()
    }
}
