import TestSupport
import Foundation
import Testing

/// `add … --part CATEGORY=AMOUNT` and `edit --part | --no-parts` through the real binaries (docs/usage.md, "One
/// payment in several categories"): parts that do not leave the expense's own category at least one minor unit
/// are refused, every total by category counts each part once in its own category (locally and on the daemon,
/// alike), and the parts travel as money with the amount.
@Suite struct ExpensePartsCommandTests {
    static let environment = ["LC_ALL": "C"]

    /// A EUR ledger with the receipt of the usage example (84.20 food, 12.30 household, 9.90 pharmacy, on
    /// 2026-03-04), 10.00 of household on 2026-03-05 and 20.00 of pharmacy with 5.00 of food on 2026-04-02; the
    /// receipt's id.
    static func ledger() throws -> (ExpenseProcess, String) {
        let ann = try ExpenseProcess()
        try ann.succeed(["config", "set", "currency", "EUR"])
        let id = try ann.succeed(["add", "84.20", "food", "--part", "household=12.30", "--part", "pharmacy=9.90", "--date", "2026-03-04"])
            .trimmingCharacters(in: .newlines)
        try ann.succeed(["add", "10", "household", "--date", "2026-03-05"])
        try ann.succeed(["add", "20", "pharmacy", "--part", "food=5", "--date", "2026-04-02"])
        return (ann, id)
    }

    /// `summary --json` with `arguments`: each group as "KEY AMOUNT COUNT", then each total as "AMOUNT CODE COUNT".
    static func summary(_ person: ExpenseProcess, _ arguments: [String]) throws -> [String] {
        let text = try person.succeed(["summary", "--json"] + arguments)
        let object = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let groups = (object["groups"] as? [[String: Any]] ?? []).map { "\($0["key"] ?? "") \($0["amount"] ?? "") \($0["count"] ?? "")" }
        let totals = try #require(object["totals"] as? [[String: Any]], "\(text)")
        return groups + totals.map { "\($0["amount"] ?? "") \($0["currency"] ?? "") \($0["count"] ?? "")" }
    }

    @Test("every total by category counts each part once in its category; grand totals are the amounts")
    func localTotals() async throws {
        try await onOwnThread {
            let (ann, _) = try Self.ledger()
            // food 84.20 − 22.20 + 5.00; household 12.30 + 10.00; pharmacy 9.90 + 15.00; total 114.20 in 3 expenses.
            #expect(try Self.summary(ann, ["--by", "category"])
                    == ["food 6700 1", "household 2230 1", "pharmacy 2490 1", "11420 EUR 3"])
            #expect(try Self.summary(ann, ["--category", "household"]) == ["2230 EUR 1"])
            #expect(try Self.summary(ann, []) == ["11420 EUR 3"])
            let stats = try ann.succeed(["stats", "--by", "category", "--from", "2026-03-01", "--to", "2026-04-30"], environment: Self.environment)
            #expect(stats.contains("2026-03  62.00      22.30      9.90   94.20      2"), "\(stats)")
            #expect(stats.contains("2026-04   5.00       0.00     15.00   20.00      1"), "\(stats)")
            // A budget counts the parts in its category, and the remainder where the category is the expense's own.
            try ann.succeed(["budget", "set", "household", "30", "--start", "2026-03-01"])
            try ann.succeed(["budget", "set", "food", "60", "--start", "2026-03-01"])
            let status = try ann.succeed(["budget", "status", "--on", "2026-03-15"], environment: Self.environment)
            #expect(status.contains("household  EUR  2026-03-01 to 2026-03-31  budgeted 30.00, spent 22.30, left 7.70"), "\(status)")
            #expect(status.contains("food       EUR  2026-03-01 to 2026-03-31  budgeted 60.00, spent 62.00, left -2.00"), "\(status)")
            // `add` warns of a budget that a part takes over.
            let warned = try ann.run(["add", "10", "tea", "--part", "household=8", "--date", "2026-03-06"])
            #expect(warned.status == 0 && warned.stderr.contains("the 'household' budget is over by 0.30 EUR"), "\(warned)")
            try ann.succeed(["delete", String(warned.stdout.prefix(8))])
            // The report's spending by category is summary's.
            let path = ann.home + "/report.html"
            try ann.succeed(["report", "--output", path, "--from", "2026-03-01", "--to", "2026-03-31"], environment: Self.environment)
            let html = try String(contentsOfFile: path, encoding: .utf8)
            for figure in ["food</bdi></td><td class=\"number\">62.00", "household</bdi></td><td class=\"number\">22.30",
                           "pharmacy</bdi></td><td class=\"number\">9.90"] {
                #expect(html.contains(figure), "\(figure)")
            }
            // list shows the expense once, with its parts.
            let table = try ann.succeed(["list"], environment: Self.environment)
            #expect(table.contains("PARTS") && table.contains("household 12.30, pharmacy 9.90")
                    && table.components(separatedBy: "84.20").count == 2, "\(table)")
            // list --category finds an expense by a part too: where the summary counted 12.30 of household.
            let household = try ann.succeed(["list", "--category", "household"], environment: Self.environment)
            #expect(household.contains("84.20") && household.contains("10.00") && !household.contains("5.00"), "\(household)")
            let json = try ann.succeed(["list", "--category", "pharmacy", "--json"])
            #expect(json.components(separatedBy: "\"id\"").count == 3, "both expenses with a pharmacy part or category: \(json)")
            #expect(try ann.succeed(["list", "--category", "food"]).components(separatedBy: "\n").count == 4, "header and food's two")
        }
    }

    @Test("parts that do not add up are refused (exit 65, invalid_parts, by how much); an amount edit they no longer fit too")
    func refusals() async throws {
        try await onOwnThread {
            let (ann, id) = try Self.ledger()
            let whole = try ann.run(["add", "10", "food", "--part", "household=10"])
            #expect(whole.status == 65 && whole.stderr.contains("invalid_parts") && whole.stderr.contains("0.01 EUR too much"), "\(whole)")
            let over = try ann.run(["add", "10", "food", "--part", "household=8", "--part", "pharmacy=3"])
            #expect(over.status == 65 && over.stderr.contains("11.00 EUR of 10.00 EUR, 1.01 EUR too much"), "\(over)")
            let own = try ann.run(["add", "10", "food", "--part", "food=1"])
            #expect(own.status == 65 && own.stderr.contains("invalid_parts"), "\(own)")
            let twice = try ann.run(["add", "10", "food", "--part", "tea=1", "--part", "tea=2"])
            #expect(twice.status == 65 && twice.stderr.contains("invalid_parts"), "\(twice)")
            let digits = try ann.run(["add", "10", "food", "--part", "tea=1.234"])
            #expect(digits.status == 65 && digits.stderr.contains("invalid_parts"), "\(digits)")
            let both = try ann.run(["edit", String(id.prefix(8)), "--part", "tea=1", "--no-parts"])
            #expect(both.status == 64 && both.stderr.contains("contradict"), "\(both)")
            // The amount alone, below the parts' 22.20: refused, saying what to give.
            let shrunk = try ann.run(["edit", String(id.prefix(8)), "--amount", "22.20"])
            #expect(shrunk.status == 65 && shrunk.stderr.contains("invalid_parts") && shrunk.stderr.contains("--no-parts"), "\(shrunk)")
            let moved = try ann.run(["edit", String(id.prefix(8)), "--amount", "90", "--currency", "USD"])
            #expect(moved.status == 65 && moved.stderr.contains("--no-parts"), "\(moved)")
            // An amount the parts still fit is kept with them (a category holding only parts counts no expense);
            // --part anew and --no-parts work.
            try ann.succeed(["edit", String(id.prefix(8)), "--amount", "22.21"])
            #expect(try Self.summary(ann, ["--by", "category", "--to", "2026-03-31"]) == ["food 1 1", "household 2230 1", "pharmacy 990 0", "3221 EUR 2"])
            try ann.succeed(["edit", String(id.prefix(8)), "--amount", "50", "--part", "household=20"])
            try ann.succeed(["edit", String(id.prefix(8)), "--no-parts"])
            #expect(try Self.summary(ann, ["--by", "category", "--to", "2026-03-31"]) == ["food 5000 1", "household 1000 1", "6000 EUR 2"])
        }
    }

    @Test("--server: the daemon's summary and stats by category equal the client's, also after an edit and a delete")
    func serverAgrees() async throws {
        try await onOwnThread {
            let (ann, _) = try Self.ledger()
            try ann.succeed(["rate", "set", "2026-01-01", "EUR", "USD", "1.0713"])
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann], ["--currency", "EUR"])
            defer { _ = daemon.stop() }
            func expectAgreement(_ label: String) throws {
                try ann.succeed(["sync"])
                // Converted too: each expense converted whole, then divided across its categories exactly.
                for arguments in [["--by", "category"], ["--category", "household"], ["--category", "food", "--by", "month"], [],
                                  ["--by", "category", "--from", "2026-03-05"], ["--by", "category", "--in", "USD"],
                                  ["--category", "pharmacy", "--in", "USD"]] {
                    #expect(try Self.summary(ann, ["--server"] + arguments) == (try Self.summary(ann, arguments)), "\(label) \(arguments)")
                }
                let stats = ["stats", "--by", "category", "--from", "2026-03-01", "--to", "2026-04-30", "--json"]
                #expect(try ann.succeed(stats + ["--server"]) == (try ann.succeed(stats)), "\(label)")
            }
            try expectAgreement("created")
            #expect(try Self.summary(ann, ["--server", "--by", "category"])
                    == ["food 6700 1", "household 2230 1", "pharmacy 2490 1", "11420 EUR 3"])
            let other = try ann.succeed(["add", "7", "travel", "--part", "books=3", "--date", "2026-03-09"]).trimmingCharacters(in: .newlines)
            try expectAgreement("added")
            try ann.succeed(["edit", String(other.prefix(8)), "--part", "books=1", "--part", "food=2"])
            try expectAgreement("edited")
            try ann.succeed(["delete", String(other.prefix(8))])
            try expectAgreement("deleted")
        }
    }

    @Test("offline: a parts edit and an amount edit on another machine are a conflict; a note edit merges with it")
    func moneyConflicts() async throws {
        try await onOwnThread {
            let (ann, id) = try Self.ledger()
            let (daemon, bob) = try DaemonProcess.sharedLedger(with: ann, currency: "EUR")
            defer { _ = daemon.stop() }
            try ann.succeed(["edit", String(id.prefix(8)), "--amount", "90"])
            try bob.succeed(["edit", String(id.prefix(8)), "--part", "household=20"])
            try ann.succeed(["sync"])
            let conflicted = try bob.run(["sync"])
            #expect(conflicted.status == 3 && conflicted.stdout.contains("conflicts 1"), "\(conflicted)")
            let conflicts = try bob.succeed(["conflicts"], environment: Self.environment)
            // Both sides whole, each with its parts (the table cuts long values).
            #expect(conflicts.contains("84.20 EUR parts household=20.") && conflicts.contains("90.00 EUR parts household=12."), "\(conflicts)")
            try bob.succeed(["resolve", String(id.prefix(8)), "--theirs"])
            try bob.succeed(["sync"])

            try ann.succeed(["edit", String(id.prefix(8)), "--note", "supermarket"])
            try bob.succeed(["edit", String(id.prefix(8)), "--part", "household=30"])
            try ann.succeed(["sync"]); try bob.succeed(["sync"]); try ann.succeed(["sync"])
            for person in [ann, bob] {
                #expect(try Self.summary(person, ["--by", "category", "--to", "2026-03-31"])
                        == ["food 6000 1", "household 4000 1", "10000 EUR 2"])
                let listed = try #require(JSONSerialization.jsonObject(with: Data(try person.succeed(["list", "--json"]).utf8)) as? [[String: Any]])
                let kept = try #require(listed.first { $0["id"] as? String == id })
                let parts = try #require(kept["parts"] as? [[String: Any]])
                #expect(kept["note"] as? String == "supermarket" && parts.count == 1 && parts.first?["amount"] as? Int == 3000, "\(kept)")
            }
        }
    }

    @Test("--member: a member's share of a shared expense is divided across its categories in proportion")
    func memberShares() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            try ann.succeed(["config", "set", "currency", "EUR"])
            try ann.succeed(["member", "add", "alice"]); try ann.succeed(["member", "add", "bob"])
            try ann.succeed(["add", "90", "food", "--part", "household=30", "--paid-by", "alice", "--split", "alice=4,bob=3",
                             "--date", "2026-03-04"])
            // 90.00 shared 4 : 3 is 51.43 and 38.57; each divided 60 : 30 by the same largest-remainder rule.
            #expect(try Self.summary(ann, ["--member", "alice", "--by", "category"]) == ["food 3429 1", "household 1714 0", "5143 EUR 1"])
            #expect(try Self.summary(ann, ["--member", "bob", "--by", "category"]) == ["food 2571 1", "household 1286 0", "3857 EUR 1"])
            let stats = try ann.succeed(["stats", "--member", "bob", "--by", "category", "--from", "2026-03-01", "--to", "2026-03-31"],
                                        environment: Self.environment)
            #expect(stats.contains("2026-03  25.71      12.86  38.57      1"), "\(stats)")
        }
    }

    @Test("export writes the parts column and import reads it back; a file without the column still imports")
    func exportImport() async throws {
        try await onOwnThread {
            let (ann, id) = try Self.ledger()
            let exported = try ann.succeed(["export"])
            #expect(exported.hasPrefix("id,date,amount,currency,category,note,paid_by,split,charged,tags,parts,source\n"), "\(exported)")
            #expect(exported.contains("\(id),2026-03-04,84.20,EUR,food,,,,,,household=12.30;pharmacy=9.90,\n"), "\(exported)")
            let file = ann.home + "/parts.csv"
            try ann.succeed(["export", "--output", file])
            let bob = try ExpenseProcess()
            try bob.succeed(["config", "set", "currency", "EUR"])
            #expect(try bob.succeed(["import", file]) == "3 new, 0 already present, 0 differing\n")
            #expect(try Self.summary(bob, ["--by", "category"]) == (try Self.summary(ann, ["--by", "category"])))
            #expect(try bob.succeed(["export"]) == exported)
            let old = bob.home + "/old.csv"
            try "date,amount,currency,category,note\n2026-05-01,3.00,EUR,tea,\n".write(toFile: old, atomically: true, encoding: .utf8)
            #expect(try bob.succeed(["import", old]) == "1 new, 0 already present, 0 differing\n")
            let bad = bob.home + "/bad.csv"
            try "date,amount,currency,category,note,parts\n2026-05-02,3.00,EUR,tea,,cake=3.00\n".write(toFile: bad, atomically: true, encoding: .utf8)
            let refused = try bob.run(["import", bad])
            #expect(refused.status == 65 && refused.stderr.contains("invalid_parts"), "\(refused)")
        }
    }
}
