@testable import ExpenseCore
import Foundation
import Testing
import TestSupport

@Suite("Balances and settle-up")
struct BalancesTests {
    static let (alice, bob, carol, dave, erin) = (memberId(1), memberId(2), memberId(3), memberId(4), memberId(5))

    /// `payer` paid `amount` of `currency`, split equally among `among` (expense id 0: the odd unit to the first).
    static func expense(_ payer: UUID, _ amount: Int64, among: [UUID], _ currency: Currency = .usd) throws -> BalanceEntry {
        let spec = try SplitSpec(method: .equal, parts: among.map { SplitSpec.Part(member: $0, weight: 1) })
        return BalanceEntry(payer: payer, currency: currency, amount: amount,
                            shares: try spec.shares(amount: amount, currency: currency, expenseId: memberId(0)))
    }

    static func nets(_ balances: Balances, _ currency: Currency = .usd) -> [UUID: Int64] {
        Dictionary(uniqueKeysWithValues: balances.balances(in: currency).map { ($0.member, $0.net) })
    }

    @Test("one expense: the payer is owed what the others' shares add up to; settle-up pays it back")
    func oneExpense() throws {
        let balances = try Balances([try Self.expense(Self.alice, 3000, among: [Self.alice, Self.bob, Self.carol])])
        #expect(balances.currencies == [.usd])
        #expect(balances.balances(in: .usd) == [
            MemberBalance(member: Self.alice, paid: 3000, share: 1000, net: 2000),
            MemberBalance(member: Self.bob, paid: 0, share: 1000, net: -1000),
            MemberBalance(member: Self.carol, paid: 0, share: 1000, net: -1000),
        ])
        // Equal debts: the lower id pays first.
        #expect(balances.settlement(in: .usd) == [
            Balances.Transfer(from: Self.bob, to: Self.alice, amount: 1000, currency: .usd),
            Balances.Transfer(from: Self.carol, to: Self.alice, amount: 1000, currency: .usd),
        ])
        #expect(balances.balances(in: TestCurrency.jpy).isEmpty && balances.settlement(in: TestCurrency.jpy).isEmpty)
    }

    @Test("a transfer raises what its sender paid and what its receiver owes")
    func transfer() throws {
        let entries = [try Self.expense(Self.alice, 3000, among: [Self.alice, Self.bob, Self.carol]),
                       BalanceEntry.transfer(from: Self.bob, to: Self.alice, amount: 400, currency: .usd)]
        let balances = try Balances(entries)
        #expect(balances.balances(in: .usd).map(\.paid) == [3000, 400, 0])
        #expect(balances.balances(in: .usd).map(\.share) == [1400, 1000, 1000])
        #expect(balances.balances(in: .usd).map(\.net) == [1600, -600, -1000])
        #expect(balances.settlement(in: .usd) == [
            Balances.Transfer(from: Self.carol, to: Self.alice, amount: 1000, currency: .usd),
            Balances.Transfer(from: Self.bob, to: Self.alice, amount: 600, currency: .usd),
        ])
    }

    @Test("currencies are kept apart and listed by code")
    func currencies() throws {
        let balances = try Balances([
            try Self.expense(Self.alice, 1000, among: [Self.alice, Self.bob], TestCurrency.jpy),
            try Self.expense(Self.bob, 1000, among: [Self.alice, Self.bob], .usd),
            try Self.expense(Self.carol, 1000, among: [Self.carol, Self.alice], TestCurrency.eur),
        ])
        #expect(balances.currencies.map(\.code) == ["EUR", "JPY", "USD"])
        #expect(Self.nets(balances, TestCurrency.jpy) == [Self.alice: 500, Self.bob: -500])
        #expect(Self.nets(balances, .usd) == [Self.alice: -500, Self.bob: 500])
        #expect(Self.nets(balances, TestCurrency.eur) == [Self.carol: 500, Self.alice: -500])
        #expect(try Balances([BalanceEntry]()).currencies.isEmpty)
    }

    @Test("refused entries")
    func refused() {
        let usd = Currency.usd
        expectSplitError("invalid_split") { () throws(SplitError) in
            try Balances([BalanceEntry(payer: Self.alice, currency: usd, amount: 100, shares: [.init(member: Self.bob, amount: 99)])])
        }
        expectSplitError("invalid_split") { () throws(SplitError) in
            try Balances([BalanceEntry(payer: Self.alice, currency: usd, amount: 100, shares: [])])
        }
        expectSplitError("invalid_split") { () throws(SplitError) in
            try Balances([BalanceEntry.transfer(from: Self.alice, to: Self.bob, amount: 0, currency: usd)])
        }
        expectSplitError("invalid_split") { () throws(SplitError) in
            try Balances([BalanceEntry.transfer(from: Self.alice, to: Self.bob, amount: ExpenseRules.maximumAmount + 1, currency: usd)])
        }
        expectSplitError("invalid_share") { () throws(SplitError) in
            try Balances([BalanceEntry(payer: Self.alice, currency: usd, amount: 100,
                                       shares: [.init(member: Self.bob, amount: 101), .init(member: Self.carol, amount: -1)])])
        }
        // Shares whose sum would overflow before it can be compared with the amount.
        expectSplitError("amount_overflow") { () throws(SplitError) in
            try Balances([BalanceEntry(payer: Self.alice, currency: usd, amount: 100,
                                       shares: [.init(member: Self.bob, amount: .max), .init(member: Self.carol, amount: .max)])])
        }
    }

    @Test("a member's total that would pass Int64.max is amount_overflow, not a trap")
    func overflow() throws {
        // 1024 × (2^53 − 1) < 2^63 − 1 < 1025 × (2^53 − 1).
        let entry = BalanceEntry.transfer(from: Self.alice, to: Self.bob, amount: ExpenseRules.maximumAmount, currency: .usd)
        #expect(try Balances(Array(repeating: entry, count: 1024)).balances(in: .usd).map(\.net)
                    == [1024 * ExpenseRules.maximumAmount, -1024 * ExpenseRules.maximumAmount])
        expectSplitError("amount_overflow") { () throws(SplitError) in try Balances(Array(repeating: entry, count: 1025)) }
    }

    // MARK: - Properties

    /// A random ledger: 2–6 members, 1–24 expenses and transfers in up to three currencies.
    static func randomEntries(_ generator: inout SeededGenerator) throws -> [BalanceEntry] {
        let members = (0..<Int.random(in: 2...6, using: &generator)).map { _ in randomId(&generator) }
        let currencies = [TestCurrency.jpy, .usd, TestCurrency.named("KWD")]
        var entries: [BalanceEntry] = []
        for _ in 0..<Int.random(in: 1...24, using: &generator) {
            let currency = currencies.randomElement(using: &generator) ?? .usd
            let payer = members.randomElement(using: &generator) ?? members[0]
            let amount = Bool.random(using: &generator)
                ? Int64.random(in: 1...10, using: &generator) : Int64.random(in: 1...1_000_000_000_000, using: &generator)
            if Int.random(in: 0..<5, using: &generator) == 0 {
                let to = members.randomElement(using: &generator) ?? members[0]
                entries.append(.transfer(from: payer, to: to, amount: amount, currency: currency))
                continue
            }
            let among = Array(members.shuffled(using: &generator).prefix(Int.random(in: 1...members.count, using: &generator)))
            let method: SplitSpec.Method = Bool.random(using: &generator) ? .equal : .shares
            let spec = try SplitSpec(method: method, parts: among.map {
                SplitSpec.Part(member: $0, weight: method == .equal ? 1 : Int64.random(in: 1...4, using: &generator))
            })
            let shares = try spec.shares(amount: amount, currency: currency, expenseId: randomId(&generator))
            entries.append(BalanceEntry(payer: payer, currency: currency, amount: amount, shares: shares))
        }
        return entries
    }

    @Test("random ledgers: nets add up to zero; the suggested transfers settle everything, at most members − 1 of them; recording the first leaves the rest unchanged")
    func properties() throws {
        var generator = SeededGenerator(seed: 0xBA1A)
        for iteration in 0..<500 {
            let entries = try Self.randomEntries(&generator)
            let balances = try Balances(entries)
            // Each suggestion paid: nobody owes anything. The first paid: the others are still the suggestions.
            // (Currencies never mix, so one ledger records the first suggestion of each.)
            let suggestions = balances.currencies.map { balances.settlement(in: $0) }
            let settled = try Balances(entries + suggestions.joined().map(\.entry))
            let firstPaid = try Balances(entries + suggestions.compactMap(\.first?.entry))
            for currency in balances.currencies {
                let rows = balances.balances(in: currency)
                let suggested = balances.settlement(in: currency)
                let owing = rows.filter { $0.net != 0 }.count
                #expect(rows.reduce(Int128(0)) { $0 + Int128($1.net) } == 0 && rows.allSatisfy { $0.net == $0.paid - $0.share }, "iteration \(iteration), \(currency.code)")
                #expect(zip(rows, rows.dropFirst()).allSatisfy { UUIDText.lowercased($0.member) < UUIDText.lowercased($1.member) }, "iteration \(iteration), \(currency.code)")
                #expect(suggested.count <= max(owing - 1, 0)
                            && suggested.allSatisfy { $0.amount > 0 && $0.from != $0.to && $0.currency == currency }, "iteration \(iteration), \(currency.code)")
                #expect(settled.balances(in: currency).allSatisfy { $0.net == 0 } && settled.settlement(in: currency).isEmpty, "iteration \(iteration), \(currency.code)")
                #expect(firstPaid.settlement(in: currency) == Array(suggested.dropFirst()), "iteration \(iteration), \(currency.code)")
            }
        }
    }

    @Test("settle-up is greedy: largest debtor to largest creditor, lower id first among equals")
    func greedy() throws {
        // Nets: alice −6, bob −4, carol +7, dave +3.
        let entries = [
            BalanceEntry(payer: Self.carol, currency: .usd, amount: 7, shares: [.init(member: Self.alice, amount: 6), .init(member: Self.bob, amount: 1)]),
            BalanceEntry(payer: Self.dave, currency: .usd, amount: 3, shares: [.init(member: Self.bob, amount: 3)]),
        ]
        #expect(try Balances(entries).settlement(in: .usd) == [
            Balances.Transfer(from: Self.alice, to: Self.carol, amount: 6, currency: .usd),
            Balances.Transfer(from: Self.bob, to: Self.dave, amount: 3, currency: .usd),
            Balances.Transfer(from: Self.bob, to: Self.carol, amount: 1, currency: .usd),
        ])
    }
}
