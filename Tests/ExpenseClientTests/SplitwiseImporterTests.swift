import ExpenseClient
import ExpenseCore
import Foundation
import Testing

/// Splitwise's "Export as spreadsheet" CSV (`expense import --format splitwise`): the file read exactly, each row's
/// payer and shares derived from the members' values, and ids that make a second import add nothing.
@Suite struct SplitwiseImporterTests {
    static let jpy = Currency(code: "JPY") ?? .usd
    static let kwd = Currency(code: "KWD") ?? .usd
    static let eur = Currency(code: "EUR") ?? .usd

    /// A group as Splitwise writes it: the header, an empty line, expenses and a payment, then one `Total balance`
    /// row per currency, whose cells the rows add up to.
    static let group = """
        Date,Description,Category,Cost,Currency,Alice,Bob,Carol

        2026-01-05,Groceries,Groceries,90.00,USD,60.00,-30.00,-30.00
        2026-01-06,"Dinner, with wine",Dining out,100.00,USD,-50.00,50.00,0.00
        2026-01-07,Taxi,,30.00,USD,-10.00,-10.00,20.00
        2026-01-08,Ramen,Dining out,3000,JPY,2000,-1000,-1000
        2026-01-10,Bob paid Alice,Payment,20.00,USD,-20.00,20.00,0.00
        2026-01-11,Total balance, , ,USD,-20.00,30.00,-10.00
        2026-01-11,Total balance, , ,JPY,2000,-1000,-1000

        """

    static func row(_ cost: Int64, _ values: [Int64], currency: Currency = .usd, category: String = "General", line: Int = 3) throws -> SplitwiseRow {
        SplitwiseRow(line: line, date: try #require(CalendarDay("2026-02-01")), description: "x", category: category, cost: cost,
                     currency: currency, values: values)
    }

    static let names = ["Alice", "Bob", "Carol", "Dan"]

    // MARK: - Reading the file

    @Test func readsTheMembersTheRowsAndTheTotalBalanceRowsApart() throws {
        let sheet = try SplitwiseImporter.sheet(from: Self.group)
        #expect(sheet.members == ["Alice", "Bob", "Carol"])
        #expect(sheet.rows.map(\.line) == [3, 4, 5, 6, 7])
        #expect(sheet.rows[1].description == "Dinner, with wine" && sheet.rows[1].category == "Dining out")
        #expect(sheet.rows[0].values == [6000, -3000, -3000] && sheet.rows[0].cost == 9000)
        #expect(sheet.rows[2].category == "")
        #expect(sheet.rows[4].isPayment && !sheet.rows[0].isPayment)
        #expect(sheet.totals.map(\.line) == [8, 9])
        #expect(sheet.totals.map(\.currency) == [.usd, Self.jpy])
        #expect(sheet.totals[0].values == [-2000, 3000, -1000])
    }

    @Test(arguments: [
        ("12.50", Currency.usd, false, Int64(1250)), ("12.5", .usd, false, 1250), ("12.500", .usd, false, 1250),
        ("1500", jpy, false, 1500), ("1500.00", jpy, false, 1500), ("1.250", kwd, false, 1250), ("1.25", kwd, false, 1250),
        ("-7.33", .usd, true, -733), ("0.00", .usd, true, 0), ("-0.00", .usd, true, 0), ("0", jpy, true, 0), (" 4.20 ", .usd, true, 420),
    ])
    func amountsAreReadExactlyInTheCurrencysMinorUnits(text: String, currency: Currency, signed: Bool, minorUnits: Int64) throws {
        #expect(try SplitwiseImporter.amount(text, currency: currency, signed: signed) == minorUnits)
    }

    @Test(arguments: [
        ("1500.50", jpy, false), ("1.2505", kwd, false), ("12.505", Currency.usd, false), ("12,50", eur, false), ("-1.00", .usd, false),
        ("0.00", .usd, false), ("", .usd, true), ("1e3", .usd, true), ("--1", .usd, true), ("+1", .usd, true), ("12.", .usd, true),
    ])
    func anAmountThatIsNotExactIsRefused(text: String, currency: Currency, signed: Bool) {
        #expect(throws: ValidationError.self) { try SplitwiseImporter.amount(text, currency: currency, signed: signed) }
    }

    @Test func aHeaderThatIsNotSplitwisesIsRefused() {
        // A translated header (the account's language was not English), and our own export's header.
        for header in ["Datum,Beschreibung,Kategorie,Kosten,Währung,A", "id,date,amount,currency,category,note", "Date,Description,Category,Cost,Currency"] {
            #expect {
                try SplitwiseImporter.sheet(from: header + "\n")
            } throws: { error in
                guard case ImportError.badHeader? = error as? ImportError else { return false }
                return true
            }
        }
        #expect {
            try SplitwiseImporter.sheet(from: "Date,Description,Category,Cost,Currency,Ann, Ann\n")
        } throws: { error in
            guard case ImportError.invalidRows(let problems, 1)? = error as? ImportError else { return false }
            return problems.first?.code == "invalid_header" && problems.first?.line == 1
        }
    }

    // MARK: - One row's payer and shares

    @Test func thePayerIsTheOneMemberAboveZeroAndSharesAreCostMinusValueForThemMinusValueForOthers() throws {
        // Alice paid 100.00, owed 40.00 of it; Dan is not in it at all.
        let entry = try SplitwiseImporter.entry(of: try Self.row(10_000, [6000, -3000, -3000, 0]), members: Self.names)
        #expect(entry == .expense(payer: 0, shares: [SplitwiseShare(column: 0, amount: 4000), SplitwiseShare(column: 1, amount: 3000),
                                                   SplitwiseShare(column: 2, amount: 3000)]))
        // Carol paid 30.00 for Alice and Bob only: her share of 0 leaves her out of the split.
        let paidForOthers = try SplitwiseImporter.entry(of: try Self.row(3000, [-2000, -1000, 3000, 0]), members: Self.names)
        #expect(paidForOthers == .expense(payer: 2, shares: [SplitwiseShare(column: 0, amount: 2000), SplitwiseShare(column: 1, amount: 1000)]))
        // Every value zero: nobody owes anybody, so no payer and no split.
        #expect(try SplitwiseImporter.entry(of: try Self.row(450, [0, 0, 0, 0]), members: Self.names) == .expense(payer: nil, shares: []))
    }

    @Test func aPaymentIsTheMemberAboveZeroPayingTheOneBelowZeroBack() throws {
        let entry = try SplitwiseImporter.entry(of: try Self.row(2000, [-2000, 2000, 0, 0], category: "Payment"), members: Self.names)
        #expect(entry == .payment(from: 1, to: 0))
        #expect(throws: ImportError.RowProblem.self) {
            try SplitwiseImporter.entry(of: try Self.row(2500, [-2000, 2000, 0, 0], category: "Payment"), members: Self.names)
        }
    }

    @Test(arguments: [
        ([Int64(6000), -3000, -2999, 0], "invalid_split"),   // does not add up to zero
        ([6000, 3000, -9000, 0], "multiple_payers"),           // two payers
        ([12_000, -6000, -6000, 0], "invalid_split"),          // the payer is owed more than the cost
    ])
    func aRowThatCannotBeOneExpenseIsRefusedNamingItsLine(values: [Int64], code: String) throws {
        let row = try Self.row(10_000, values, line: 7)
        do {
            _ = try SplitwiseImporter.entry(of: row, members: Self.names)
            Issue.record("accepted \(values)")
        } catch {
            #expect(error.line == 7 && error.code == code, "\(error)")
        }
    }

    // MARK: - The whole file

    @Test func everyRowBecomesAnExpenseOrATransferWithExactSplitsAndNewMembers() throws {
        let plan = try SplitwiseImporter.read(Self.group, members: [])
        #expect(plan.newMembers.map(\.name) == ["Alice", "Bob", "Carol"])
        #expect(plan.newMembers.map(\.id) == ["Alice", "Bob", "Carol"].map(SplitwiseImporter.memberId(named:)))
        let (alice, bob, carol) = (plan.members[0].id, plan.members[1].id, plan.members[2].id)
        #expect(plan.expenses.map(\.line) == [3, 4, 5, 6])
        let groceries = plan.expenses[0].expense
        #expect(groceries.amount == 9000 && groceries.paidBy == alice && groceries.category == "Groceries" && groceries.note == "Groceries")
        #expect(groceries.split == (try SplitSpec(method: .exact, parts: [.init(member: alice, weight: 3000), .init(member: bob, weight: 3000),
                                                                            .init(member: carol, weight: 3000)])))
        #expect(plan.expenses[1].expense.note == "Dinner, with wine" && plan.expenses[1].expense.paidBy == bob)
        #expect(plan.expenses[2].expense.category == "General")   // no category: Splitwise's default
        let ramen = plan.expenses[3].expense
        #expect(ramen.currency == Self.jpy && ramen.amount == 3000 && ramen.shares.map(\.amount) == [1000, 1000, 1000])
        #expect(plan.transfers.map(\.line) == [7])
        let payment = try #require(plan.transfers.first?.transfer)
        #expect(payment.from == bob && payment.to == alice && payment.amount == 2000 && payment.currency == .usd
                && payment.date.description == "2026-01-10")
        #expect(plan.warnings.isEmpty)
    }

    @Test func aThreeDigitAndAZeroDigitCurrencyAreExact() throws {
        let text = """
            Date,Description,Category,Cost,Currency,Ann,Ben
            2026-03-01,Dates,Groceries,1.500,KWD,0.750,-0.750
            2026-03-02,Sushi,Dining out,4500.00,JPY,-1500.00,1500.00
            """
        let plan = try SplitwiseImporter.read(text, members: [])
        let (ann, ben) = (plan.members[0].id, plan.members[1].id)
        let dates = plan.expenses[0].expense
        #expect(dates.currency == Self.kwd && dates.amount == 1500 && dates.paidBy == ann && dates.splitText.hasPrefix("exact:"))
        #expect(Set(dates.shares.map(\.amount)) == [750])
        let sushi = plan.expenses[1].expense
        #expect(sushi.currency == Self.jpy && sushi.amount == 4500 && sushi.paidBy == ben)
        #expect(sushi.shares.first { $0.member == ann }?.amount == 1500 && sushi.shares.first { $0.member == ben }?.amount == 3000)
        #expect(throws: ImportError.self) {
            try SplitwiseImporter.read(text.replacingOccurrences(of: "4500.00", with: "4500.50"), members: [])
        }
    }

    @Test func badRowsAreAllNamedInLineOrderAndNothingIsReturned() throws {
        let text = """
            Date,Description,Category,Cost,Currency,Ann,Ben,Cat
            2026-03-01,Two payers,General,90.00,USD,30.00,30.00,-60.00
            2026-03-02,Off by a cent,General,10.00,USD,5.00,-4.99,0.00
            2026-03-03,Fine,General,10.00,USD,5.00,-5.00,0.00
            2026-03-04,Bad currency,General,10.00,usd,5.00,-5.00,0.00
            2026-03-05,Short,General,10.00,USD,5.00,-5.00
            """
        let error = try #require(throws: ImportError.self) { try SplitwiseImporter.read(text, members: []) }
        guard case .invalidRows(let problems, let total) = error else { Issue.record("\(error)"); return }
        #expect(total == 4)
        #expect(problems.map(\.line) == [2, 3, 5, 6])
        #expect(problems.map(\.code) == ["multiple_payers", "invalid_split", "invalid_currency", "invalid_row"])
    }

    @Test func aTotalBalanceRowTheRowsDoNotAddUpToIsAWarningNotAnExpense() throws {
        let text = Self.group.replacingOccurrences(of: "USD,-20.00,30.00,-10.00", with: "USD,-20.00,25.00,-5.00")
        let plan = try SplitwiseImporter.read(text, members: [])
        #expect(plan.expenses.count == 4 && plan.transfers.count == 1)
        #expect(plan.warnings.count == 1)
        #expect(plan.warnings.first?.contains("line 8") == true && plan.warnings.first?.contains("'Bob' 25.00 USD there, 30.00 USD from the rows") == true)
    }

    @Test func idsComeFromTheContentSoASecondImportOrALaterExportFindsTheSameRecords() throws {
        let first = try SplitwiseImporter.read(Self.group, members: [])
        let again = try SplitwiseImporter.read(Self.group, members: first.members)
        #expect(again.newMembers.isEmpty)
        #expect(again.expenses.map(\.expense) == first.expenses.map(\.expense))
        #expect(again.transfers == first.transfers)
        // A later export of the group: a member joined (a column of zeros in the old rows), the columns in
        // another order, a new row. The old rows keep their ids.
        let later = """
            Date,Description,Category,Cost,Currency,Carol,Dan,Bob,Alice
            2026-01-05,Groceries,Groceries,90.00,USD,-30.00,0.00,-30.00,60.00
            2026-01-06,"Dinner, with wine",Dining out,100.00,USD,0.00,0.00,50.00,-50.00
            2026-01-07,Taxi,,30.00,USD,20.00,0.00,-10.00,-10.00
            2026-01-08,Ramen,Dining out,3000,JPY,-1000,0,-1000,2000
            2026-01-10,Bob paid Alice,Payment,20.00,USD,0.00,0.00,20.00,-20.00
            2026-02-01,Cinema,Entertainment,24.00,USD,0.00,-12.00,0.00,12.00
            """
        let grown = try SplitwiseImporter.read(later, members: first.members)
        #expect(grown.newMembers.map(\.name) == ["Dan"])
        #expect(Array(grown.expenses.map(\.expense.id).prefix(4)) == first.expenses.map(\.expense.id))
        #expect(grown.transfers.map(\.transfer.id) == first.transfers.map(\.transfer.id))
        // Two identical rows are two expenses; none of these ids is a CSV import's.
        let twice = Self.group.replacingOccurrences(of: "2026-01-07,Taxi", with: "2026-01-05,Groceries,Groceries,90.00,USD,60.00,-30.00,-30.00\n2026-01-07,Taxi")
        let doubled = try SplitwiseImporter.read(twice, members: [])
        #expect(Set(doubled.expenses.map(\.expense.id)).count == 5)
        let csv = try CSVImporter.expenses(from: "date,amount,currency,category,note\n2026-01-05,90.00,USD,Groceries,Groceries\n", defaultCurrency: .usd)
        #expect(!first.expenses.map(\.expense.id).contains(try #require(csv.first).id))
    }

    @Test func aMemberOfTheLedgerIsUsedByNameAndOneWhoLeftIsNamedInNewRows() throws {
        let bob = Member(id: UUID(), name: "Bob")
        // Renamed since an earlier import made her: found by the name's derived id.
        let carol = Member(id: SplitwiseImporter.memberId(named: "Carol"), name: "Caroline", status: .left)
        let plan = try SplitwiseImporter.read(Self.group, members: [bob, carol])
        #expect(plan.newMembers.map(\.name) == ["Alice"])
        #expect(plan.members.map(\.id) == [SplitwiseImporter.memberId(named: "Alice"), bob.id, carol.id])
        let problems = plan.leftMemberProblems(in: plan.expenses)
        #expect(problems.map(\.line) == [3, 5, 6] && problems.allSatisfy { $0.code == "member_left" && $0.message.contains("'Caroline'") })
        #expect(plan.leftMemberProblems(in: [plan.expenses[1]]).isEmpty)
    }
}
