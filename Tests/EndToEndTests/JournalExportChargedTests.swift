import ExpenseCLI
import ExpenseClient
import Foundation
import Testing
import TestSupport

/// An expense with an amount charged in the ledger's currency (`--paid`) in `export --format hledger|beancount`:
/// its `Expenses` posting carries that amount as a total price (`@@`), and what paid it is that amount, so at cost
/// the three tools' `Expenses` in the ledger's currency are what `expense summary --in` counts.
@Suite struct JournalExportChargedTests {
    static let tools = JournalExportToolTests.self

    /// A EUR ledger: 10.00 EUR; 7.00 USD with no amount charged (a USD→EUR rate of 0.92 converts it: 6.44);
    /// 120.00 CHF charged 128.40 EUR (no CHF rate at all); 50.00 USD charged 46.10 EUR, shared by alice and bob.
    /// `summary --in EUR`: 10.00 + 6.44 + 128.40 + 46.10 = 190.94.
    ///
    /// The unpriced USD expense comes before the charged one: Ledger also infers a market price from every `@@`
    /// (1 USD = 0.922 EUR on the 5th), which its `-X` would use for a later USD amount, where `summary --in` uses
    /// only the ledger's rates.
    static func ledger() throws -> ExpenseProcess {
        let ann = try ExpenseProcess()
        try ann.succeed(["config", "set", "currency", "EUR"])
        for name in ["alice", "bob"] { try ann.succeed(["member", "add", name]) }
        try ann.succeed(["rate", "set", "2026-03-01", "USD", "EUR", "0.92"])
        try ann.succeed(["add", "10.00", "food", "--date", "2026-03-01"])
        try ann.succeed(["add", "7.00", "travel", "--currency", "USD", "--date", "2026-03-02"])
        try ann.succeed(["add", "120.00", "food", "--currency", "CHF", "--paid", "128.40", "--date", "2026-03-04", "--note", "fondue"])
        try ann.succeed(["add", "50.00", "travel", "--currency", "USD", "--paid", "46.10", "--paid-by", "alice", "--split", "alice,bob",
                         "--date", "2026-03-05", "--note", "train"])
        return ann
    }

    /// `summary --in EUR`'s total, in cents.
    static func convertedTotal(_ ann: ExpenseProcess) throws -> Int64 {
        let summary = try ConvertedViewFixture.object(try ann.succeed(["summary", "--in", "EUR", "--json"]))
        let totals = try #require(summary["totals"] as? [[String: Any]])
        try #require(totals.count == 1 && totals[0]["currency"] as? String == "EUR", "\(summary)")
        return Int64(try #require(totals[0]["amount"] as? Int))
    }

    @Test("the Expenses posting is priced @@ the amount charged, and what paid it is that amount; balances stay in the expense's currency")
    func chargedIsATotalPrice() async throws {
        try await onOwnThread {
            let ann = try Self.ledger()
            let hledger = try ann.succeed(["export", "--format", "hledger"])
            #expect(hledger.contains("2026-03-04 * fondue\n    ; id: ") && hledger.contains("""
                    Expenses:food  120.00 CHF @@ 128.40 EUR
                    Assets:Cash  -128.40 EUR

                """), "\(hledger)")
            #expect(hledger.contains("""
                    Expenses:travel  50.00 USD @@ 46.10 EUR
                    Assets:Cash:alice  -46.10 EUR
                    Assets:Balances:alice  25.00 USD
                    Assets:Balances:bob  -25.00 USD

                """), "\(hledger)")
            #expect(hledger.contains("    Expenses:travel  7.00 USD\n    Assets:Cash  -7.00 USD\n"), "no amount charged, no price: \(hledger)")
            let beancount = try ann.succeed(["export", "--format", "beancount"])
            #expect(beancount.contains("  Expenses:Food  120.00 CHF @@ 128.40 EUR\n  Assets:Cash  -128.40 EUR\n"), "\(beancount)")
            #expect(beancount.contains("  Expenses:Travel  50.00 USD @@ 46.10 EUR\n  Assets:Cash:Alice  -46.10 EUR\n"
                                       + "  Assets:Balances:Alice  25.00 USD\n  Assets:Balances:Bob  -25.00 USD\n"), "\(beancount)")
            #expect(try Self.convertedTotal(ann) == 19094)
        }
    }

    @Test("hledger and Ledger at cost, valued on each posting's day, total summary --in EUR",
          .enabled(if: (tools.hledger != nil && tools.ledger != nil) || tools.isCI,
                   "hledger or Ledger is not installed: apt-get install hledger ledger (required under CI=true)"))
    func hledgerAndLedgerAgreeWithTheConvertedSummary() async throws {
        try await onOwnThread {
            let hledger = try #require(Self.tools.hledger, "hledger is not installed, and CI=true")
            let ledger = try #require(Self.tools.ledger, "Ledger is not installed, and CI=true")
            let ann = try Self.ledger()
            let file = ann.directory + "/charged.journal"
            try ann.succeed(["export", "--format", "hledger", "--output", file])
            #expect(try Self.tools.tool(hledger, ["-f", file, "check"], in: ann).status == 0)
            // -B: each priced posting at its cost; --value=then,EUR: the rest at the price of its day.
            let balance = try Self.tools.tool(hledger, ["-f", file, "balance", "Expenses", "-B", "--value=then,EUR", "--depth", "1",
                                                       "-O", "csv", "--layout=bare"], in: ann)
            #expect(balance.status == 0, "\(balance)")
            let rows: [[String]] = try CSV.parse(balance.stdout).dropFirst().map(\.fields)
            let expenses = rows.filter { (row: [String]) in row.count == 3 && row[0] == "Expenses" }.map { (row: [String]) in row[1] + " " + row[2] }
            #expect(expenses == ["EUR 190.94"], "\(balance)")
            let atCost = try Self.tools.tool(ledger, ["-f", file, "balance", "Expenses", "-B", "-X", "EUR", "--historical", "--depth", "1",
                                                     "--format", "%(commodity(display_total))\t%(quantity(display_total))\n"], in: ann)
            #expect(atCost.status == 0 && atCost.stderr == "", "\(atCost)")
            #expect(atCost.stdout.split(separator: "\n").first == "EUR\t190.94", "\(atCost)")
            #expect(try Self.convertedTotal(ann) == 19094)
        }
    }

    /// Sums the weight of every `Expenses` posting (its total price when it has one), each converted into
    /// `argv[2]` by the file's prices on its day; prints the sum.
    static let beancountScript = """
        from decimal import Decimal
        from sys import argv, exit, stderr
        from beancount import loader
        from beancount.core import convert, data, prices
        entries, errors, options = loader.load_file(argv[1])
        if errors:
            print(errors, file=stderr)
            exit(1)
        price_map = prices.build_price_map(entries)
        total = Decimal(0)
        for entry in entries:
            if isinstance(entry, data.Transaction):
                for posting in entry.postings:
                    if posting.account.startswith("Expenses:"):
                        weight = convert.get_weight(posting)
                        if weight.currency != argv[2]:
                            weight = convert.convert_amount(weight, argv[2], price_map, date=entry.date)
                        if weight.currency != argv[2]:
                            print("not converted:", weight, file=stderr)
                            exit(1)
                        total += weight.number
        print(total.quantize(Decimal("0.01")))
        """

    @Test("Beancount's weights, converted on each day by the file's prices, total summary --in EUR",
          .enabled(if: (tools.beanCheck != nil && tools.python != nil) || tools.isCI,
                   "Beancount is not installed: pip install beancount (required under CI=true)"))
    func beancountAgreesWithTheConvertedSummary() async throws {
        try await onOwnThread {
            let beanCheck = try #require(Self.tools.beanCheck, "bean-check is not installed, and CI=true")
            let python = try #require(Self.tools.python, "python3 is not installed, and CI=true")
            let ann = try Self.ledger()
            let file = ann.directory + "/charged.beancount"
            try ann.succeed(["export", "--format", "beancount", "--output", file])
            let check = try Self.tools.tool(beanCheck, [file], in: ann)
            #expect(check.status == 0 && check.stderr == "", "\(check)")
            let total = try Self.tools.tool(python, ["-c", Self.beancountScript, file, "EUR"], in: ann)
            #expect(total.status == 0 && total.stdout == "190.94\n", "\(total)")
            #expect(try Self.convertedTotal(ann) == 19094)
        }
    }
}
