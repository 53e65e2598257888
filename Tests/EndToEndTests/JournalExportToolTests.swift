import ExpenseCLI
import ExpenseClient
import ExpenseCore
import Foundation
import Testing
import TestSupport

/// `expense export --format hledger|beancount` through the real binary, its files given to the real tools:
/// `hledger check`, `ledger balance` and `bean-check` accept them, and the `Expenses` totals and the members'
/// `Assets:Balances` the tools compute equal `expense summary` and `expense balances`, per currency. Skipped (with
/// the reason) where a tool is absent; under `CI=true` its absence is a failure (`.ci/run` installs them).
@Suite struct JournalExportToolTests {
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"
    static func which(_ name: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
    static let hledger = which("hledger")
    static let ledger = which("ledger")
    static let beanCheck = which("bean-check")
    static let python = which("python3")

    /// The members, with a hostile and a right-to-left name (distinct in both formats).
    static let members = ["alice", "bob", "Ünal; \"O'Brien\"", "سارة"]

    /// A ledger of hostile categories and notes in JPY, USD and KWD, shared expenses, two transfers and two
    /// expenses with an amount charged in USD.
    static func hostileLedger() throws -> ExpenseProcess {
        let expense = try ExpenseProcess()
        for name in members { try expense.succeed(["member", "add", name]) }
        let rows: [[String]] = [
            ["12.50", "food & drink", "--note", "lunch; with \"friends\" \\ and\na newline\tand tab"],
            ["3.20", "food drink", "--note", "  double  spaces  "], ["7.25", "Food-drink"],
            // Two expenses charged in USD (`@@` prices the tools must accept), one of them shared.
            ["1250", "train: tokyo;osaka", "--currency", "JPY", "--note", "(x) y", "--paid", "8.40"],
            ["12.500", "طعام 🍕", "--currency", "KWD", "--note", "שלום  עולם \u{200F}"],
            ["4.99", "two  spaces"], ["9.99", "quote \" and \\ backslash"], ["0.01", "cafe\u{301}"], ["0.02", "caf\u{E9}"],
            ["1.00", "🎉"], ["2.00", "*(virtual)"],
            ["100.00", "dinner", "--paid-by", "alice", "--split", "all"],
            ["90.00", "groceries", "--paid-by", "bob", "--split", "alice=2,bob=1"],
            ["1000", "train", "--currency", "JPY", "--paid-by", "سارة", "--split", "all"],
            ["10.000", "fuel", "--currency", "KWD", "--paid-by", "alice", "--split", "alice,bob", "--paid", "32.50"],
            ["12.00", "taxi", "--paid-by", "bob"],
        ]
        for (index, row) in rows.enumerated() {
            try expense.succeed(["add"] + row + ["--date", "2026-11-\(10 + index % 5)"])
        }
        try expense.succeed(["settle", "record", "bob", "alice", "30.00", "--date", "2026-11-20"])
        try expense.succeed(["settle", "record", "سارة", "alice", "333", "--currency", "JPY", "--date", "2026-11-21"])
        return expense
    }

    /// `expense summary`'s totals (per currency, and per category as ``JournalAccountNames`` names its account)
    /// and `expense balances`' nets (the member's name escaped by `format`), keyed `Expenses CUR`,
    /// `Expenses:CATEGORY CUR` and `Assets:Balances:NAME CUR` (``key(_:)``), zeros left out.
    static func expected(_ expense: ExpenseProcess, _ format: JournalFormat) throws -> [String: Int64] {
        var expected: [String: Int64] = [:]
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(try expense.succeed(["summary", "--by", "category", "--json"]).utf8))
                                   as? [String: Any])
        for total in try #require(summary["totals"] as? [[String: Any]]) {
            expected["Expenses \(try #require(total["currency"] as? String))"] = Int64(try #require(total["amount"] as? Int))
        }
        let groups = try #require(summary["groups"] as? [[String: Any]])
        let categories = try groups.map { try #require($0["key"] as? String) }
        let names = JournalAccountNames(format: format, expensesRoot: "Expenses", assets: "Assets:Cash",
                                        accounts: categories.map { .expenses(category: $0) }, memberName: { _ in "" })
        for (group, category) in zip(groups, categories) {
            let account = names.name(.expenses(category: category))
            expected[key("\(account) \(try #require(group["currency"] as? String))")] = Int64(try #require(group["amount"] as? Int))
        }
        let balances = try #require(try JSONSerialization.jsonObject(with: Data(try expense.succeed(["balances", "--json"]).utf8)) as? [[String: Any]])
        for row in balances where row["net"] as? Int != 0 {
            let name = try #require(row["name"] as? String), currency = try #require(row["currency"] as? String)
            expected[key("Assets:Balances:\(format.component(name)) \(currency)")] = Int64(try #require(row["net"] as? Int))
        }
        #expect(expected.count > 25, "\(expected)")
        return expected
    }

    /// Sums `(account, currency, decimal)` rows the way ``expected(_:_:)`` keys them, zeros left out.
    static func sums(_ rows: [(account: String, currency: String, amount: String)]) throws -> [String: Int64] {
        var sums: [String: Int64] = [:]
        for row in rows {
            let currency = try #require(Currency(code: row.currency), "\(row)")
            let amount = try #require(minorUnits(row.amount, digits: currency.minorUnits), "\(row)")
            if row.account.hasPrefix("Expenses:") { sums["Expenses \(row.currency)", default: 0] += amount }
            if row.account.hasPrefix("Expenses:") || row.account.hasPrefix("Assets:Balances:") {
                sums[key("\(row.account) \(row.currency)"), default: 0] += amount
            }
        }
        return sums.filter { $0.value != 0 }
    }

    /// `text` with every scalar beyond ASCII written `\u{…}`, so that two spellings of one text (NFC, NFD) are two
    /// keys, as they are two categories and two accounts.
    static func key(_ text: String) -> String {
        text.unicodeScalars.map { $0.isASCII ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined()
    }

    /// `-12.500` as minor units with `digits` decimals (more digits only when they are zeros).
    static func minorUnits(_ text: String, digits: Int) -> Int64? {
        let negative = text.hasPrefix("-")
        let parts = text.dropFirst(negative ? 1 : 0).split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = Int64(parts[0]) else { return nil }
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        guard fraction.dropFirst(digits).allSatisfy({ $0 == "0" }) else { return nil }
        let padded = String((fraction + String(repeating: "0", count: digits)).prefix(digits))
        guard let cents = digits == 0 ? 0 : Int64(padded) else { return nil }
        let value = whole * Int64(pow(10, Double(digits))) + cents
        return negative ? -value : value
    }

    /// Runs a journal tool to completion, in a UTF-8 locale whatever this process has (hledger reads a file in the
    /// locale's encoding and refuses the export's UTF-8 in the C locale, "hGetContents: invalid byte sequence",
    /// which is what a CI run without `LANG` gets); its result.
    static func tool(_ path: String, _ arguments: [String], in expense: ExpenseProcess) throws -> ExpenseProcess.Result {
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C.UTF-8"
        return try ExpenseProcess.run(path, arguments, environment: environment, scratch: expense.directory)
    }

    /// Exports `format` to a file, checks it is private and the same as a second export to standard output.
    static func export(_ expense: ExpenseProcess, _ format: JournalFormat) throws -> String {
        let file = expense.directory + "/journal." + format.rawValue
        let result = try expense.run(["export", "--format", format.rawValue, "--output", file])
        #expect(result.status == 0 && result.stdout == "" && result.stderr == "Exported 16 expenses and 2 transfers to \(file).\n", "\(result)")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(try expense.succeed(["export", "--format", format.rawValue]) == String(contentsOfFile: file, encoding: .utf8))
        return file
    }

    @Test(.enabled(if: hledger != nil || isCI, "hledger is not installed: apt-get install hledger (required under CI=true)"))
    func hledgerChecksTheJournalAndTotalsAgree() async throws {
        try await onOwnThread {
            let hledger = try #require(Self.hledger, "hledger is not installed (apt-get install hledger), and CI=true")
            let expense = try Self.hostileLedger()
            let file = try Self.export(expense, .hledger)
            let check = try Self.tool(hledger, ["-f", file, "check"], in: expense)
            #expect(check.status == 0, "\(check)")
            let balance = try Self.tool(hledger, ["-f", file, "balance", "--flat", "-O", "csv", "--layout=bare"], in: expense)
            #expect(balance.status == 0, "\(balance)")
            let rows = try CSV.parse(balance.stdout).dropFirst().map(\.fields).filter { $0.count == 3 }
            #expect(try Self.sums(rows.map { ($0[0], $0[1], $0[2]) }) == Self.expected(expense, .hledger))
            // Every record's id is a tag, so a re-export is recognisable.
            let tags = try Self.tool(hledger, ["-f", file, "tags", "id", "--values"], in: expense)
            #expect(tags.stdout.split(separator: "\n").count == 18, "\(tags)")
        }
    }

    @Test(.enabled(if: ledger != nil || isCI, "Ledger is not installed: apt-get install ledger (required under CI=true)"))
    func ledgerReadsTheHledgerJournalAndTotalsAgree() async throws {
        try await onOwnThread {
            let ledger = try #require(Self.ledger, "Ledger is not installed (apt-get install ledger), and CI=true")
            let expense = try Self.hostileLedger()
            let file = try Self.export(expense, .hledger)
            let balance = try Self.tool(ledger, ["-f", file, "balance"], in: expense)
            #expect(balance.status == 0 && balance.stderr == "", "\(balance)")
            let register = try Self.tool(ledger, ["-f", file, "register", "--format", "%(account)\t%(commodity(amount))\t%(quantity(amount))\n"],
                                         in: expense)
            #expect(register.status == 0, "\(register)")
            let rows = register.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
            #expect(rows.allSatisfy { $0.count == 3 }, "\(register)")
            #expect(try Self.sums(rows.filter { $0.count == 3 }.map { ($0[0], $0[1], $0[2]) }) == Self.expected(expense, .hledger))
        }
    }

    /// Prints each posting's `account\tcurrency\tnumber` summed, then `#` and each transaction's id and narration as
    /// JSON; exits 1 with the errors when Beancount reports any.
    static let beancountScript = """
        import json, sys
        from collections import defaultdict
        from beancount import loader
        from beancount.core import data
        entries, errors, options = loader.load_file(sys.argv[1])
        if errors:
            print(errors, file=sys.stderr)
            sys.exit(1)
        sums = defaultdict(int)
        narrations = {}
        for entry in entries:
            if isinstance(entry, data.Transaction):
                narrations[entry.meta["id"]] = entry.narration
                for posting in entry.postings:
                    sums[(posting.account, posting.units.currency)] += posting.units.number
        for (account, currency), number in sorted(sums.items()):
            print(f"{account}\\t{currency}\\t{number}")
        print("#" + json.dumps(narrations))
        """

    @Test(.enabled(if: (beanCheck != nil && python != nil) || isCI, "Beancount is not installed: pip install beancount (required under CI=true)"))
    func beanCheckAcceptsTheJournalAndTotalsAgree() async throws {
        try await onOwnThread {
            let beanCheck = try #require(Self.beanCheck, "bean-check is not installed (pip install beancount), and CI=true")
            let python = try #require(Self.python, "python3 is not installed, and CI=true")
            let expense = try Self.hostileLedger()
            let file = try Self.export(expense, .beancount)
            let check = try Self.tool(beanCheck, [file], in: expense)
            #expect(check.status == 0 && check.stdout == "" && check.stderr == "", "\(check)")
            let result = try Self.tool(python, ["-c", Self.beancountScript, file], in: expense)
            #expect(result.status == 0, "\(result)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            let rows = lines.filter { !$0.hasPrefix("#") }.map { $0.split(separator: "\t").map(String.init) }
            #expect(try Self.sums(rows.map { ($0[0], $0[1], $0[2]) }) == Self.expected(expense, .beancount))
            // The notes come back with their quotes, backslashes, emoji and right-to-left text; controls as spaces.
            let json = try #require(lines.last { $0.hasPrefix("#") }?.dropFirst())
            let narrations = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String])
            #expect(narrations.count == 18)
            #expect(Set(narrations.values).isSuperset(of: ["lunch; with \"friends\" \\ and a newline and tab", "(x) y", "שלום  עולם  ",
                                                           "bob paid alice back"]), "\(narrations)")
        }
    }

    @Test(.enabled(if: (hledger != nil && ledger != nil && beanCheck != nil) || isCI,
                   "hledger, Ledger or Beancount is not installed: apt-get install hledger ledger; pip install beancount (required under CI=true)"))
    func theToolsReadPriceDirectives() async throws {
        try await onOwnThread {
            let hledger = try #require(Self.hledger, "hledger is not installed, and CI=true")
            let ledger = try #require(Self.ledger, "Ledger is not installed, and CI=true")
            let beanCheck = try #require(Self.beanCheck, "bean-check is not installed, and CI=true")
            let scratch = try ExpenseProcess()
            let journal = scratch.directory + "/sample.journal", beancount = scratch.directory + "/sample.beancount"
            try JournalExportTests.sample(.hledger).write(toFile: journal, atomically: true, encoding: .utf8)
            try JournalExportTests.sample(.beancount).write(toFile: beancount, atomically: true, encoding: .utf8)
            #expect(try Self.tool(hledger, ["-f", journal, "check"], in: scratch).status == 0)
            let prices = try Self.tool(hledger, ["-f", journal, "prices"], in: scratch)
            #expect(prices.stdout == "P 2026-12-03 EUR 1.0534 USD\nP 2026-12-04 KWD 3.25 USD\n", "\(prices)")
            // Ledger converts the KWD expense to USD by the KWD price.
            let converted = try Self.tool(ledger, ["-f", journal, "balance", "Expenses:طعام", "-X", "USD"], in: scratch)
            #expect(converted.status == 0 && converted.stdout.contains("USD") && !converted.stdout.contains("KWD"), "\(converted)")
            let check = try Self.tool(beanCheck, [beancount], in: scratch)
            #expect(check.status == 0 && check.stderr == "", "\(check)")
        }
    }

    @Test func accountOptionsAreCheckedAgainstTheFormat() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            try expense.succeed(["add", "1", "food"])
            let lower = try expense.run(["export", "--format", "beancount", "--assets-account", "Assets:cash"])
            #expect(lower.status == 64 && lower.stdout == "", "\(lower)")
            #expect(lower.stderr.hasPrefix("Error: --assets-account 'Assets:cash' is not a Beancount account: each part after the root "
                                           + "must start with an upper-case letter or a digit"), "\(lower)")
            let semicolon = try expense.run(["export", "--format", "hledger", "--expenses-account", "Spend;ing"])
            #expect(semicolon.status == 64 && semicolon.stderr.contains("it holds ;, which starts a comment"), "\(semicolon)")
            #expect(try expense.run(["export", "--format", "hledger", "--assets-account", "Assets"]).stderr.contains("overlap"))
            let csv = try expense.run(["export", "--format", "csv", "--expenses-account", "Costs"])
            #expect(csv.status == 64 && csv.stderr.contains("--expenses-account and --assets-account are for --format hledger or beancount"))
            let custom = try expense.succeed(["export", "--format", "hledger", "--expenses-account", "Dépenses:Maison", "--assets-account", "Actif:Caisse commune"])
            #expect(custom.contains("    Dépenses:Maison:food  1.00 USD\n    Actif:Caisse commune  -1.00 USD\n"), "\(custom)")
        }
    }

    @Test func anEmptyLedgerIsAnEmptyJournal() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            for format in JournalFormat.allCases {
                let result = try expense.run(["export", "--format", format.rawValue])
                #expect(result.status == 0 && result.stdout == "", "\(result)")
            }
        }
    }
}
