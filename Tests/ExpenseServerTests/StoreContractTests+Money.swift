import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
@testable import ExpenseServer

/// Money is one field (Protocol.md §7.4): `amount` and `currency` share one version, so a put that sends
/// either conflicts when the (amount, currency) pair changed since its base to a different pair.
extension StoreContractTests {
    /// A 5.00 EUR expense (500 minor units) at version 1, and two clients that saw it.
    private func fiveEuros(_ kind: LedgerStoreKind) throws -> (TestLedger, EngineClient, EngineClient, UUID) {
        let ledger = try TestLedger(kind)
        var alice = EngineClient(ledger.engine)
        let bob = EngineClient(ledger.engine)
        let id = UUID()
        #expect(try alice.put(id, base: 0, fields(amount: 500, currency: "EUR", category: "food", date: "2026-01-01"))
            == .applied(version: 1, seq: 1))
        return (ledger, alice, bob, id)
    }

    private func money(_ engine: LedgerEngine) throws -> (Int64, String) {
        let expense = try #require(try allRecords(engine).first).expense
        return (expense.amount, expense.currency.code)
    }

    /// The seen story: 5.00 EUR; A makes it 500 JPY (only `currency` goes on the wire), B makes it 7.50 EUR.
    /// Both used to apply, giving 750 JPY, an amount nobody entered.
    @Test(arguments: LedgerStoreKind.allCases)
    func currencyThenAmountConflicts(kind: LedgerStoreKind) throws {
        var (ledger, alice, bob, id) = try fiveEuros(kind)
        #expect(try alice.put(id, base: 1, fields(currency: "JPY")) == .applied(version: 2, seq: 2))
        let conflict = try bob.put(id, base: 1, fields(amount: 750))
        let current = try #require(conflict.conflictRecord)
        #expect(current.expense.amount == 500 && current.expense.currency.code == "JPY" && current.version == 2)
        #expect(try money(ledger.engine) == (500, "JPY"))
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func amountThenCurrencyConflicts(kind: LedgerStoreKind) throws {
        var (ledger, alice, bob, id) = try fiveEuros(kind)
        #expect(try bob.put(id, base: 1, fields(amount: 750)) == .applied(version: 2, seq: 2))
        // Currency-only is still legal on the wire, but its conflict check covers the amount too.
        #expect(try alice.put(id, base: 1, fields(currency: "JPY")).isConflict)
        // Sent with the amount it meant, the same check holds.
        #expect(try alice.put(id, base: 1, fields(amount: 500, currency: "JPY")).isConflict)
        #expect(try money(ledger.engine) == (750, "EUR"))
    }

    @Test(arguments: LedgerStoreKind.allCases)
    func currencyAgainstCurrencyAndAmountAgainstAmount(kind: LedgerStoreKind) throws {
        var (ledger, alice, bob, id) = try fiveEuros(kind)
        #expect(try alice.put(id, base: 1, fields(currency: "JPY")) == .applied(version: 2, seq: 2))
        #expect(try bob.put(id, base: 1, fields(currency: "GBP")).isConflict)
        // The pair already holds what is sent: applied, no new version.
        #expect(try bob.put(id, base: 1, fields(currency: "JPY")) == .applied(version: 2, seq: 2))
        #expect(try alice.put(id, base: 2, fields(amount: 900)) == .applied(version: 3, seq: 3))
        #expect(try bob.put(id, base: 2, fields(amount: 800)).isConflict)
        #expect(try bob.put(id, base: 2, fields(amount: 900)) == .applied(version: 3, seq: 3))
        #expect(try bob.put(id, base: 1, fields(amount: 900, currency: "JPY")) == .applied(version: 3, seq: 3))
        #expect(try money(ledger.engine) == (900, "JPY"))
    }

    /// Money against another field still merges, in both orders; money's version is not moved by them.
    @Test(arguments: LedgerStoreKind.allCases)
    func moneyAndCategoryStillMerge(kind: LedgerStoreKind) throws {
        var (ledger, alice, bob, id) = try fiveEuros(kind)
        #expect(try alice.put(id, base: 1, fields(currency: "JPY")) == .applied(version: 2, seq: 2))
        #expect(try bob.put(id, base: 1, fields(category: "travel")) == .applied(version: 3, seq: 3))
        #expect(try bob.put(id, base: 1, fields(date: "2026-02-02", note: "n")) == .applied(version: 4, seq: 4))
        // Money last changed at 2: a base of 2 may change it, a base of 1 may not.
        #expect(try alice.put(id, base: 1, fields(amount: 600)).isConflict)
        #expect(try alice.put(id, base: 2, fields(amount: 600, category: "travel")) == .applied(version: 5, seq: 5))
        #expect(try bob.put(id, base: 4, fields(category: "food")) == .applied(version: 6, seq: 6))
        #expect(try alice.put(id, base: 5, fields(currency: "EUR")) == .applied(version: 7, seq: 7))
        let expense = try #require(try allRecords(ledger.engine).first).expense
        #expect(expense.amount == 600 && expense.currency.code == "EUR" && expense.category == "food")
        #expect(expense.note == "n" && expense.date.description == "2026-02-02")
    }
}

/// Text is the same only when its bytes are (Protocol.md §2), in the rules and in the stored aggregates alike.
extension StoreContractTests {
    /// Records moving between canonically equivalent categories, several in one transaction: the per-day and
    /// per-month totals follow each spelling exactly (Swift's `==` would merge their keys).
    @Test(arguments: LedgerStoreKind.allCases)
    func aggregatesKeepCanonicallyEquivalentCategoriesApart(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        let clientId = UUID()
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        let ids = (0..<4).map { _ in UUID() }
        _ = try ledger.engine.push(clientId: clientId, items: [
            putItem(1, ids[0], base: 0, lunch(100, category: composed)),
            putItem(2, ids[1], base: 0, lunch(20, category: decomposed)),
            putItem(3, ids[2], base: 0, lunch(3, category: composed)),
        ])
        // One push: one record moves NFC → NFD with a new amount, another NFD → NFC, a third is created.
        let moved = try ledger.engine.push(clientId: clientId, items: [
            putItem(4, ids[0], base: 1, fields(amount: 150, category: decomposed)),
            putItem(5, ids[1], base: 1, fields(category: composed)),
            putItem(6, ids[3], base: 0, lunch(4000, category: decomposed)),
            deleteItem(7, ids[2], base: 1),
        ])
        #expect(moved.results.allSatisfy { if case .applied = $0.status { true } else { false } })
        let expenses = try allRecords(ledger.engine).filter { !$0.deleted }.map(\.expense)
        for query in [SummaryQuery(), SummaryQuery(groupBy: .category), SummaryQuery(category: composed),
                      SummaryQuery(category: decomposed), SummaryQuery(from: CalendarDay("2026-11-02"), groupBy: .category)] {
            let summary = try ledger.engine.summary(query).summary
            #expect(summary == (try Aggregator.summarize(expenses, query: query)), "\(query)")
        }
        #expect(try ledger.engine.summary(SummaryQuery(category: composed)).summary.totals.map(\.amount) == [20])
        #expect(try ledger.engine.summary(SummaryQuery(category: decomposed)).summary.totals.map(\.amount) == [4150])
    }
}
