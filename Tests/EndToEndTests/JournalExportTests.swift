import ExpenseCLI
import ExpenseCore
import Foundation
import Testing

/// The journal export's model (``JournalExport``: balanced postings, shares, transfers, order) and each format's
/// escaping and layout, without the real tools (``JournalExportToolTests`` gives them the files).
@Suite struct JournalExportTests {
    static let usd = Currency.usd
    static func currency(_ code: String) throws -> Currency { try #require(Currency(code: code)) }
    static func day(_ text: String) throws -> CalendarDay { try #require(CalendarDay(text)) }
    static func id(_ last: Int) throws -> UUID {
        try #require(UUID(uuidString: "00000000-0000-4000-8000-" + String(format: "%012d", last)))
    }

    static let alice = UUID(uuidString: "a11ce000-0000-4000-8000-000000000001") ?? UUID()
    static let bob = UUID(uuidString: "b0b00000-0000-4000-8000-000000000002") ?? UUID()
    static let carol = UUID(uuidString: "ca201000-0000-4000-8000-000000000003") ?? UUID()
    static func name(_ member: UUID) -> String {
        [alice: "alice", bob: "bob", carol: "carol ;: \u{1B}[31m"][member] ?? UUIDText.lowercased(member)
    }

    static func expense(_ id: Int, _ amount: Int64, _ currency: Currency = usd, _ category: String = "food", date: String = "2026-01-02",
                        note: String = "", paidBy: UUID? = nil, split: SplitSpec? = nil) throws -> Expense {
        Expense(id: try Self.id(id), amount: amount, currency: currency, category: category, date: try day(date), note: note,
                paidBy: paidBy, split: split)
    }

    // MARK: - The model

    @Test func anUnsharedExpenseIsTwoPostingsFromTheAssetsOrThePayersCash() throws {
        let journal = try JournalExport(expenses: [try Self.expense(1, 1250), try Self.expense(2, 500, paidBy: Self.bob)],
                                        transfers: [], prices: [], ledgerCurrency: .usd, names: Self.name)
        #expect(journal.transactions.map(\.postings) == [
            [.init(account: .expenses(category: "food"), amount: 1250, currency: Self.usd), .init(account: .assets, amount: -1250, currency: Self.usd)],
            [.init(account: .expenses(category: "food"), amount: 500, currency: Self.usd), .init(account: .cash(member: Self.bob), amount: -500, currency: Self.usd)],
        ])
    }

    @Test func anExpenseWithPartsPostsEachPartToItsOwnCategory() throws {
        let expense = try ExpenseValidator.validate(ExpenseDraft(id: "00000000-0000-4000-8000-000000000009", amount: 8_420, currency: "USD",
                                                                 category: "food", date: "2026-01-02", note: "",
                                                                 parts: "1230:household\n990:pharmacy"))
        let journal = try JournalExport(expenses: [expense], transfers: [], prices: [], ledgerCurrency: .usd, names: Self.name)
        #expect(journal.transactions.map(\.postings) == [[
            .init(account: .expenses(category: "food"), amount: 6_200, currency: Self.usd),
            .init(account: .expenses(category: "household"), amount: 1_230, currency: Self.usd),
            .init(account: .expenses(category: "pharmacy"), amount: 990, currency: Self.usd),
            .init(account: .assets, amount: -8_420, currency: Self.usd),
        ]])
    }

    /// Parts of an expense with an amount charged: each category's posting carries its share of the amount charged
    /// as its total price, divided as the amount is, so the prices add up to what was paid.
    @Test func partsOfAnExpenseWithAnAmountChargedShareItExactly() throws {
        let eur = try #require(Currency(code: "EUR")), chf = try #require(Currency(code: "CHF"))
        let expense = try ExpenseValidator.validate(ExpenseDraft(id: "00000000-0000-4000-8000-00000000000a", amount: 10_000, currency: "CHF",
                                                                 category: "food", date: "2026-01-02", note: "", charged: 10_001,
                                                                 parts: "3333:household"))
        let journal = try JournalExport(expenses: [expense], transfers: [], prices: [], ledgerCurrency: eur, names: Self.name)
        let postings = try #require(journal.transactions.first?.postings)
        #expect(postings.map(\.amount) == [6_667, 3_333, -10_001])
        let prices = postings.compactMap(\.totalPrice)
        #expect(prices.map(\.currency) == [eur, eur] && prices.map(\.amount).reduce(0, +) == 10_001, "\(prices)")
        #expect(postings.first?.currency == chf && postings.last?.currency == eur)
    }

    @Test func aSharedExpenseCreditsThePayerAndDebitsEachOtherMembersShare() throws {
        let split = try SplitSpec(method: .equal, parts: [Self.alice, Self.bob, Self.carol].map { SplitSpec.Part(member: $0, weight: 1) })
        let expense = try Self.expense(3, 10_000, paidBy: Self.alice, split: split)
        let shares = Dictionary(uniqueKeysWithValues: try split.shares(amount: 10_000, currency: Self.usd, expenseId: expense.id).map { ($0.member, $0.amount) })
        let journal = try JournalExport(expenses: [expense], transfers: [], prices: [], ledgerCurrency: .usd, names: Self.name)
        let postings = try #require(journal.transactions.first).postings
        let aliceShare: Int64 = shares[Self.alice] ?? 0, bobShare: Int64 = shares[Self.bob] ?? 0, carolShare: Int64 = shares[Self.carol] ?? 0
        let expected: [JournalExport.Posting] = [
            JournalExport.Posting(account: .expenses(category: "food"), amount: 10_000, currency: Self.usd),
            JournalExport.Posting(account: .cash(member: Self.alice), amount: -10_000, currency: Self.usd),
            JournalExport.Posting(account: .balances(member: Self.alice), amount: 10_000 - aliceShare, currency: Self.usd),
            JournalExport.Posting(account: .balances(member: Self.bob), amount: -bobShare, currency: Self.usd),
            JournalExport.Posting(account: .balances(member: Self.carol), amount: -carolShare, currency: Self.usd),
        ]
        #expect(postings == expected)
        #expect(postings.reduce(Int64(0)) { $0 + $1.amount } == 0)
        #expect(Set(shares.values) == [3334, 3333])
    }

    @Test func aPayerOutsideTheSplitIsOwedAllOfItAndASplitWithoutAPayerMovesNoBalance() throws {
        let split = try SplitSpec(method: .exact, parts: [SplitSpec.Part(member: Self.bob, weight: 700), SplitSpec.Part(member: Self.carol, weight: 300)])
        let journal = try JournalExport(expenses: [try Self.expense(4, 1000, paidBy: Self.alice, split: split),
                                                   try Self.expense(5, 1000, split: split)],
                                        transfers: [], prices: [], ledgerCurrency: .usd, names: Self.name)
        #expect(journal.transactions.map(\.postings.count) == [5, 2])
        #expect(journal.transactions[0].postings.contains(.init(account: .balances(member: Self.alice), amount: 1000, currency: Self.usd)))
        #expect(journal.transactions[1].postings.map(\.account) == [.expenses(category: "food"), .assets])
    }

    @Test func aTransferMovesCashAndBalancesButNoExpense() throws {
        let transfer = Transfer(id: try Self.id(9), from: Self.bob, to: Self.alice, amount: 3000, currency: Self.usd, date: try Self.day("2026-01-05"))
        let journal = try JournalExport(expenses: [], transfers: [transfer], prices: [], ledgerCurrency: .usd, names: Self.name)
        let transaction = try #require(journal.transactions.first)
        #expect(transaction.kind == .transfer && transaction.description == "bob paid alice back")
        #expect(transaction.postings == [
            .init(account: .cash(member: Self.bob), amount: -3000, currency: Self.usd),
            .init(account: .cash(member: Self.alice), amount: 3000, currency: Self.usd),
            .init(account: .balances(member: Self.bob), amount: 3000, currency: Self.usd),
            .init(account: .balances(member: Self.alice), amount: -3000, currency: Self.usd),
        ])
    }

    @Test("the Balances postings add up to `expense balances`' nets and the Expenses ones to the amounts, per currency")
    func postingsAgreeWithBalancesAndTotals() throws {
        let jpy = try Self.currency("JPY")
        let members = [Self.alice, Self.bob, Self.carol]
        var expenses: [Expense] = []
        for index in 0..<40 {
            let equal = index % 2 == 0
            let parts = members.prefix(1 + index % 3).map { SplitSpec.Part(member: $0, weight: equal ? 1 : Int64(1 + index % 4)) }
            let split = try SplitSpec(method: equal ? .equal : .shares, parts: parts)
            expenses.append(try Self.expense(100 + index, Int64(97 * index + 1), index % 5 == 0 ? jpy : Self.usd,
                                             "c\(index % 4)", paidBy: members[index % 3], split: index % 7 == 0 ? nil : split))
        }
        let transfers = [Transfer(id: try Self.id(7), from: Self.carol, to: Self.bob, amount: 123, currency: jpy, date: try Self.day("2026-01-01"))]
        let journal = try JournalExport(expenses: expenses, transfers: transfers, prices: [], ledgerCurrency: .usd, names: Self.name)
        var sums: [String: Int64] = [:]
        for posting in journal.transactions.flatMap(\.postings) {
            switch posting.account {
            case .balances(let member): sums["\(UUIDText.lowercased(member)) \(posting.currency.code)", default: 0] += posting.amount
            case .expenses: sums["Expenses \(posting.currency.code)", default: 0] += posting.amount
            default: break
            }
        }
        let balances = try Balances(expenses: expenses, transfers: transfers, currency: nil)
        for currency in balances.currencies {
            for row in balances.balances(in: currency) {
                #expect(sums["\(UUIDText.lowercased(row.member)) \(currency.code)", default: 0] == row.net)
            }
            #expect(sums["Expenses \(currency.code)"] == expenses.filter { $0.currency == currency }.reduce(0) { $0 + $1.amount })
        }
        for transaction in journal.transactions { #expect(transaction.postings.reduce(0) { $0 + $1.amount } == 0) }
    }

    @Test func transactionsAreSortedByDateThenIdWhateverTheInputOrder() throws {
        let expenses = [try Self.expense(3, 1, date: "2026-01-02"), try Self.expense(1, 1, date: "2026-01-03"),
                        try Self.expense(2, 1, date: "2026-01-02")]
        let transfer = Transfer(id: try Self.id(0), from: Self.bob, to: Self.alice, amount: 5, currency: Self.usd, date: try Self.day("2026-01-03"))
        let forward = try JournalExport(expenses: expenses, transfers: [transfer], prices: [], ledgerCurrency: .usd, names: Self.name)
        let backward = try JournalExport(expenses: expenses.reversed(), transfers: [transfer], prices: [], ledgerCurrency: .usd, names: Self.name)
        #expect(forward.transactions.map(\.id) == [try Self.id(2), try Self.id(3), try Self.id(0), try Self.id(1)])
        #expect(backward.transactions.map(\.id) == forward.transactions.map(\.id))
    }

    @Test func pricesNeedAPlainPositiveDecimalAndTwoCurrencies() throws {
        let day = try Self.day("2026-12-04"), eur = try Self.currency("EUR")
        for rate in ["1.0534", "150", "0.5"] { #expect(JournalPrice(date: day, from: eur, to: Self.usd, rate: rate) != nil, "\(rate)") }
        for rate in ["", "0", "0.00", "1.", ".5", "-1", "1e3", "1,5", "1.0.1", " 1", "1\n"] {
            #expect(JournalPrice(date: day, from: eur, to: Self.usd, rate: rate) == nil, "\(rate)")
        }
        #expect(JournalPrice(date: day, from: eur, to: eur, rate: "1") == nil)
    }

    // MARK: - The written text

    /// One expense in each of three currencies, a shared one, a transfer and two prices, written in `format`.
    static func sample(_ format: JournalFormat) throws -> String {
        let split = try SplitSpec(method: .exact, parts: [SplitSpec.Part(member: alice, weight: 600), SplitSpec.Part(member: bob, weight: 400)])
        let expenses = [try expense(1, 1250, usd, "food & drink", date: "2026-12-04", note: "Lunch; \"team\"\\\n\tout"),
                        try expense(2, 1250, try currency("JPY"), "train", date: "2026-12-05", note: "(x) y"),
                        try expense(3, 12_500, try currency("KWD"), "طعام 🍕", date: "2026-12-05"),
                        try expense(4, 1000, usd, "food drink", date: "2026-12-06", paidBy: alice, split: split)]
        let transfers = [Transfer(id: try id(5), from: bob, to: alice, amount: 400, currency: usd, date: try day("2026-12-07"))]
        let prices = [try #require(JournalPrice(date: try day("2026-12-04"), from: try currency("KWD"), to: usd, rate: "3.25")),
                      try #require(JournalPrice(date: try day("2026-12-03"), from: try currency("EUR"), to: usd, rate: "1.0534"))]
        let journal = try JournalExport(expenses: expenses.reversed(), transfers: transfers, prices: prices, ledgerCurrency: .usd, names: name)
        let names = JournalAccountNames(format: format, expensesRoot: "Expenses", assets: "Assets:Cash", accounts: journal.accounts, memberName: name)
        var text = ""
        switch format {
        case .hledger: journal.writeHledger(names: names) { text += $0 }
        case .beancount: journal.writeBeancount(names: names) { text += $0 }
        }
        return text
    }

    @Test func hledgerText() throws {
        #expect(try Self.sample(.hledger) == """
            P 2026-12-03 EUR 1.0534 USD
            P 2026-12-04 KWD 3.25 USD

            2026-12-04 * Lunch, "team"\\ out
                ; id: 00000000-0000-4000-8000-000000000001
                Expenses:food & drink  12.50 USD
                Assets:Cash  -12.50 USD

            2026-12-05 * () (x) y
                ; id: 00000000-0000-4000-8000-000000000002
                Expenses:train  1250 JPY
                Assets:Cash  -1250 JPY

            2026-12-05 *
                ; id: 00000000-0000-4000-8000-000000000003
                Expenses:طعام 🍕  12.500 KWD
                Assets:Cash  -12.500 KWD

            2026-12-06 *
                ; id: 00000000-0000-4000-8000-000000000004
                Expenses:food drink  10.00 USD
                Assets:Cash:alice  -10.00 USD
                Assets:Balances:alice  4.00 USD
                Assets:Balances:bob  -4.00 USD

            2026-12-07 * bob paid alice back
                ; id: 00000000-0000-4000-8000-000000000005
                Assets:Cash:bob  -4.00 USD
                Assets:Cash:alice  4.00 USD
                Assets:Balances:bob  4.00 USD
                Assets:Balances:alice  -4.00 USD

            """)
    }

    @Test func beancountText() throws {
        let suffix = { (category: String) in "-" + SHA1.digest(Array(category.utf8)).prefix(4).map { String(format: "%02x", $0) }.joined() }
        #expect(try Self.sample(.beancount) == """
            2026-12-03 open Assets:Balances:Alice
            2026-12-03 open Assets:Balances:Bob
            2026-12-03 open Assets:Cash
            2026-12-03 open Assets:Cash:Alice
            2026-12-03 open Assets:Cash:Bob
            \(["food & drink", "food drink"].map { "2026-12-03 open Expenses:Food-drink\(suffix($0))\n" }.sorted().joined())\
            2026-12-03 open Expenses:Train
            2026-12-03 open Expenses:X-طعام

            2026-12-03 price EUR 1.0534 USD
            2026-12-04 price KWD 3.25 USD

            2026-12-04 * "Lunch; \\"team\\"\\\\  out"
              id: "00000000-0000-4000-8000-000000000001"
              Expenses:Food-drink\(suffix("food & drink"))  12.50 USD
              Assets:Cash  -12.50 USD

            2026-12-05 * "(x) y"
              id: "00000000-0000-4000-8000-000000000002"
              Expenses:Train  1250 JPY
              Assets:Cash  -1250 JPY

            2026-12-05 * ""
              id: "00000000-0000-4000-8000-000000000003"
              Expenses:X-طعام  12.500 KWD
              Assets:Cash  -12.500 KWD

            2026-12-06 * ""
              id: "00000000-0000-4000-8000-000000000004"
              Expenses:Food-drink\(suffix("food drink"))  10.00 USD
              Assets:Cash:Alice  -10.00 USD
              Assets:Balances:Alice  4.00 USD
              Assets:Balances:Bob  -4.00 USD

            2026-12-07 * "bob paid alice back"
              id: "00000000-0000-4000-8000-000000000005"
              Assets:Cash:Bob  -4.00 USD
              Assets:Cash:Alice  4.00 USD
              Assets:Balances:Bob  4.00 USD
              Assets:Balances:Alice  -4.00 USD

            """)
    }

    @Test func pricesAloneAreWrittenWithoutABlankLineFirst() throws {
        let price = try #require(JournalPrice(date: try Self.day("2026-12-04"), from: try Self.currency("EUR"), to: Self.usd, rate: "1.0534"))
        let journal = try JournalExport(expenses: [], transfers: [], prices: [price], ledgerCurrency: .usd, names: Self.name)
        let names = JournalAccountNames(format: .beancount, expensesRoot: "Expenses", assets: "Assets:Cash", accounts: [], memberName: Self.name)
        var hledger = "", beancount = ""
        journal.writeHledger(names: names) { hledger += $0 }
        journal.writeBeancount(names: names) { beancount += $0 }
        #expect(hledger == "P 2026-12-04 EUR 1.0534 USD\n")
        #expect(beancount == "2026-12-04 price EUR 1.0534 USD\n")
    }

    @Test func nothingToExportIsAnEmptyJournal() throws {
        let journal = try JournalExport(expenses: [], transfers: [], prices: [], ledgerCurrency: .usd, names: Self.name)
        let names = JournalAccountNames(format: .beancount, expensesRoot: "Expenses", assets: "Assets:Cash", accounts: [], memberName: Self.name)
        var text = ""
        journal.writeBeancount(names: names) { text += $0 }
        journal.writeHledger(names: names) { text += $0 }
        #expect(text == "")
    }
}
