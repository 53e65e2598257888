import TestSupport
import Foundation
import Testing

/// The `expense` binary, run as a real process: stdout, stderr and exit code of each command.
@Suite struct ExpenseCommandTests {
    /// A value `expense` cannot use in its environment is a usage error naming the variable, before anything
    /// is opened: `EXPENSE_STORE=sqlit` must never open (and create) another cache than the one meant.
    @Test(arguments: [("EXPENSE_STORE", "mysql"), ("EXPENSE_SYNC_ATTEMPTS", "0"), ("EXPENSE_SYNC_ATTEMPTS", "abc"),
                      ("EXPENSE_WATCH_PING", "-1"), ("EXPENSE_CHART", "yes")])
    func unusableEnvironmentValuesAreUsageErrors(name: String, value: String) async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let result = try expense.run(["list"], environment: [name: value])
            #expect(result.status == 64, "\(result)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.hasPrefix("Error: \(name) must be"), "\(result)")
            #expect(!FileManager.default.fileExists(atPath: expense.home), "nothing may be created")
        }
    }

    @Test func addListAndSummaryHappyPath() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let added = try expense.run(["add", "12.50", "food", "--date", "2026-03-01", "--note", "lunch, with Ann"])
            #expect(added.status == 0)
            #expect(added.stderr == "")
            let id = added.stdout.trimmingCharacters(in: .newlines)
            #expect(UUID(uuidString: id) != nil && added.stdout == id + "\n")
            try expense.succeed(["add", "0.1", "food", "--date=2026-03-02"])
            try expense.succeed(["add", "1250", "sushi", "--currency", "JPY", "--date", "2026-04-01"])
            try expense.succeed(["add", "7", "books", "--date", "2026-03-05"])

            let list = try expense.run(["list"])
            #expect(list.status == 0 && list.stderr == "")
            let lines = list.stdout.split(separator: "\n")
            #expect(lines.count == 5)
            #expect(lines[0].hasPrefix("DATE"))
            #expect(lines[1].contains("2026-03-01") && lines[1].contains("12.50  USD  food") && lines[1].contains(String(id.prefix(8))))
            #expect(lines[1].contains("lunch, with Ann"))
            #expect(lines[2].contains("  0.10  USD"))   // right-aligned under 12.50

            let json = try expense.run(["list", "--json", "--category", "food", "--from", "2026-03-02"])
            let items = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            #expect(items.count == 1)
            #expect(items.first?["amount"] as? Int == 10)
            #expect(items.first?["currency"] as? String == "USD")

            let summary = try expense.run(["summary", "--by", "category"])
            #expect(summary.status == 0 && summary.stderr == "")
            #expect(summary.stdout == """
                JPY  1250  (1 expense)
                  sushi  1250  100.0%
                USD  19.60  (3 expenses)
                  food   12.60   64.3%
                  books   7.00   35.7%

                """)
            #expect(!summary.stdout.contains("█"))      // no chart when piped

            let summaryJSON = try expense.run(["summary", "--json"])
            let body = try #require(try JSONSerialization.jsonObject(with: Data(summaryJSON.stdout.utf8)) as? [String: Any])
            let totals = try #require(body["totals"] as? [[String: Any]])
            #expect(totals.map { $0["amount"] as? Int } == [1250, 1960])
        }
    }

    @Test func negativeAmountOnlyAfterDoubleDashAndThenInvalid() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let dashed = try expense.run(["add", "--", "-3", "food"])
            #expect(dashed.status == 65)
            #expect(dashed.stdout == "")
            #expect(dashed.stderr.hasPrefix("Error: invalid_amount: "))

            let bare = try expense.run(["add", "-3", "food"])
            #expect(bare.status == 64)
            #expect(bare.stdout == "")
            #expect(bare.stderr == """
                Error: Unknown option '-3'
                Usage: expense add <amount> <category> [--date <date>] [--note <text>] [--currency <code>] [--paid-by <name>] [--split <spec>] [--paid <amount>] [--tag <tag>] [--part <category=amount>]
                See 'expense add --help' for more information.

                """)
        }
    }

    @Test(arguments: [
        (["add", "12.505", "food"], "invalid_amount", "amount"),
        (["add", "12", "   "], "empty_category", "category"),
        (["add", "12", "food", "--date", "2026-02-29"], "invalid_date", "date"),
        (["add", "12", "food", "--currency", "usd"], "invalid_currency", "currency"),
        (["add", "9007199254740992", "food", "--currency", "JPY"], "invalid_amount", "amount"),
    ])
    func validationErrorsExit65NamingTheField(arguments: [String], code: String, field: String) async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let result = try expense.run(arguments)
            #expect(result.status == 65, "\(result)")
            #expect(result.stdout == "")
            #expect(result.stderr.hasPrefix("Error: \(code): "))
            #expect(result.stderr.contains(field))
            #expect(try expense.run(["list", "--json"]).stdout == "[]\n")
        }
    }

    @Test func editDeleteAndPrefixes() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let id = try expense.succeed(["add", "10", "food", "--date", "2026-01-01"]).trimmingCharacters(in: .newlines)
            let prefix = String(id.prefix(6)).uppercased()
            #expect(try expense.succeed(["edit", prefix, "--amount", "1000", "--currency", "JPY", "--note", "yen"]) == id + "\n")
            let currencyOnly = try expense.run(["edit", prefix, "--currency", "EUR"])
            #expect(currencyOnly.status == 64 && currencyOnly.stderr.contains("--currency needs --amount"))
            let listed = try expense.succeed(["list"])
            #expect(listed.contains("1000  JPY  food      yen"))
            #expect(try expense.run(["edit", String(id.prefix(3)), "--note", "x"]).status == 1)
            let unknown = try expense.run(["delete", id.hasPrefix("0") ? "1000000" : "0000000"])
            #expect(unknown.status == 1 && unknown.stderr.hasPrefix("Error: unknown_id: "))
            #expect(try expense.succeed(["delete", prefix]) == id + "\n")
            #expect(try expense.succeed(["list", "--json"]) == "[]\n")
        }
    }

    @Test func ambiguousPrefixExits1() async throws {
        try await onOwnThread {
            // Ids are random, so this cache is written by hand, in the JSON store's format.
            let expense = try ExpenseProcess()
            try FileManager.default.createDirectory(atPath: expense.home, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            func entry(_ id: String, _ order: Int) -> String {
                #"{"id":"\#(id)","amount":100,"currency":"USD","category":"food","date":"2026-01-01","note":"","baseVersion":0,"deleted":false,"order":\#(order)}"#
            }
            let file = #"{"format":1,"nextOrder":3,"pending":[],"meta":{"client_id":"11111111-1111-4111-8111-111111111111","next_mutation_id":"1"},"expenses":["#
                + entry("abcd1111-0000-4000-8000-000000000001", 1) + "," + entry("abcd2222-0000-4000-8000-000000000002", 2) + "]}"
            try file.write(toFile: expense.home + "/cache.json", atomically: true, encoding: .utf8)
            let json = ["EXPENSE_STORE": "json"]
            let ambiguous = try expense.run(["delete", "abcd"], environment: json)
            #expect(ambiguous.status == 1)
            #expect(ambiguous.stdout == "")
            #expect(ambiguous.stderr.hasPrefix("Error: ambiguous_id: 'abcd' matches several expenses (abcd1111, abcd2222)"))
            #expect(try expense.succeed(["delete", "abcd2"], environment: json) == "abcd2222-0000-4000-8000-000000000002\n")
        }
    }

    @Test func corruptCacheExits74NamingTheFile() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            try FileManager.default.createDirectory(atPath: expense.home, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let cache = expense.home + "/cache.sqlite"
            try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: cache))
            for arguments in [["list"], ["add", "1", "food"], ["summary"]] {
                let result = try expense.run(arguments)
                #expect(result.status == 74, "\(arguments): \(result)")
                #expect(result.stdout == "")
                #expect(result.stderr.contains(cache))
                #expect(result.stderr.hasPrefix("Error: unreadable_cache: "))
            }
        }
    }

    @Test(arguments: [[], ["add"], ["list"], ["edit"], ["delete"], ["summary"], ["export"], ["import"],
                      ["config"], ["config", "set"], ["config", "get"]])
    func helpEverywhereExits0(path: [String]) async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            for arguments in [path + ["--help"], path + ["-h"], ["help"] + path] {
                let result = try expense.run(arguments)
                #expect(result.status == 0, "\(arguments): \(result)")
                #expect(result.stderr == "")
                #expect(result.stdout.hasPrefix("OVERVIEW: "))
                #expect(result.stdout.contains("USAGE: expense"))
                #expect(result.stdout.contains("EXIT CODES:"))
            }
            #expect(!FileManager.default.fileExists(atPath: expense.home))   // help never touches the disk
        }
    }

    @Test func versionAndUnknownSubcommand() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let version = try expense.run(["--version"])
            #expect(version.status == 0 && version.stdout.hasPrefix("expense ") && version.stderr == "")
            let unknown = try expense.run(["frobnicate"])
            #expect(unknown.status == 64 && unknown.stdout == "")
            #expect(unknown.stderr.hasPrefix("Error: Unknown subcommand 'frobnicate'\nUsage: expense <subcommand>\n"))
        }
    }

    /// Columns line up in terminal cells: CJK characters and emoji take two cells, not one.
    @Test func wideCharactersKeepTheColumnsAligned() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            try expense.succeed(["add", "5", "食べ物", "--date", "2026-03-01", "--note", "日本語のノート"])
            try expense.succeed(["add", "3", "🍕 pizza", "--date", "2026-03-02", "--note", "🇯🇵"])
            try expense.succeed(["add", "12.50", "food", "--date", "2026-03-03", "--note", "lunch"])
            let lines = try expense.succeed(["list"]).split(separator: "\n").map(String.init)
            #expect(lines.first == "DATE        AMOUNT  CUR  CATEGORY  NOTE            ID")
            #expect(lines.dropFirst().map { String($0.dropLast(8)) } == [   // the short ids differ from run to run
                "2026-03-01    5.00  USD  食べ物    日本語のノート  ",
                "2026-03-02    3.00  USD  🍕 pizza  🇯🇵              ",
                "2026-03-03   12.50  USD  food      lunch           ",
            ])
            #expect(try expense.succeed(["summary", "--by", "category"]) == """
                USD  20.50  (3 expenses)
                  food      12.50   61.0%
                  食べ物     5.00   24.4%
                  🍕 pizza   3.00   14.6%

                """)
        }
    }

    /// `resolve` of an expense that has no open conflict says so, rather than that the expense does not exist.
    @Test func resolvingAnExpenseWithoutAConflictSaysThereIsNoConflict() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let id = try expense.succeed(["add", "5", "food"]).trimmingCharacters(in: .newlines)
            let result = try expense.run(["resolve", String(id.prefix(8)), "--mine"])
            #expect(result.status == 1 && result.stdout == "")
            #expect(result.stderr == "Error: unknown_id: no open conflict has an id starting with '\(id.prefix(8))'; `expense conflicts` lists them\n")
        }
    }

    @Test func configuredCurrencyIsTheDefault() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            try expense.succeed(["config", "set", "currency", "JPY"])
            #expect(try expense.succeed(["config", "get", "currency"]) == "JPY\n")
            #expect(try expense.run(["add", "12.5", "food"]).status == 65)   // JPY has no minor unit
            let id = try expense.succeed(["add", "1250", "food", "--date", "2026-01-01"]).trimmingCharacters(in: .newlines)
            #expect(try expense.succeed(["export"]) == "id,date,amount,currency,category,note,paid_by,split,charged,tags,parts,source\n\(id),2026-01-01,1250,JPY,food,,,,,,,\n")
            #expect(try expense.run(["config", "set", "currency", "XYZ"]).status == 65)
            #expect(try expense.run(["config", "set", "colour", "red"]).status == 64)
        }
    }
}

/// The bar chart appears only when standard output is a terminal: util-linux `script` gives the binary one.
@Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
func summaryDrawsABarChartInATerminal() async throws {
    try await onOwnThread {
        let expense = try ExpenseProcess()
        try expense.succeed(["add", "30", "rent", "--date", "2026-01-01"])
        try expense.succeed(["add", "10", "food", "--date", "2026-01-02"])
        let command = "'\(ExpenseProcess.executable)' summary --by category"
        var environment = ProcessInfo.processInfo.environment
        environment["EXPENSE_HOME"] = expense.home
        let result = try ExpenseProcess.run("/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment,
                                            scratch: expense.directory)
        #expect(result.status == 0)
        let text = result.stdout
        let lines = text.split(whereSeparator: \.isNewline)
        let rent = try #require(lines.firstIndex { $0.contains("rent") })
        let food = try #require(lines.firstIndex { $0.contains("food") })
        #expect(rent < food)                                          // largest first
        #expect(lines[rent].contains("████████████████████████") && lines[rent].contains("75.0%"))
        #expect(lines[food].contains("████████ ") && lines[food].contains("25.0%"))
    }
}
