import Foundation
import ExpenseProtocol
import TestSupport
import Testing

/// `expense rule add|list|remove|move|apply` and `import` running the rules, through the real binary; rules
/// synced and in conflict between two machines through a real `expensed`.
@Suite struct RuleCommandTests {
    static let environment = ["LC_ALL": "C"]

    static func id(_ output: String) -> String { output.trimmingCharacters(in: .newlines) }

    /// The `position` of each rule of `rule list --json`, by id.
    static func positions(_ process: ExpenseProcess) throws -> [String: Int64] {
        let data = Data(try process.succeed(["rule", "list", "--json"]).utf8)
        let rules = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        var positions: [String: Int64] = [:]
        for rule in rules {
            positions[try #require(rule["id"] as? String)] = (rule["position"] as? NSNumber)?.int64Value
        }
        return positions
    }

    @Test("rule add, list (text and JSON), move (only the moved rule's position changes), remove")
    func addListMoveRemove() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let empty = try ann.run(["rule", "list"])
            #expect(empty.status == 0 && empty.stdout.isEmpty && empty.stderr == "No rules; add one with `expense rule add`.\n", "\(empty)")
            let first = Self.id(try ann.succeed(["rule", "add", "--name", "groceries", "--match", "text~^(rewe|edeka) ",
                                                 "--set-category", "groceries"]))
            let second = Self.id(try ann.succeed(["rule", "add", "--match", "category=Groceries", "--amount-from", "50",
                                                  "--set-note", "weekly shop"]))
            let third = Self.id(try ann.succeed(["rule", "add", "--name", "utilities", "--any", "--match", "text~strom",
                                                 "--match", "note~(?-i)GAS", "--date-from", "2026-01-01", "--date-to", "2026-12-31",
                                                 "--set-category", "utilities"]))
            #expect(first.count == 36 && second.count == 36 && third.count == 36)
            let listed = try ann.succeed(["rule", "list"], environment: Self.environment)
            #expect(listed == """
                1. \(first.prefix(8))  'groceries'  if text~^(rewe|edeka)  then category='groceries'
                2. \(second.prefix(8))  if category=Groceries and amount 50.. then note='weekly shop'
                3. \(third.prefix(8))  'utilities'  if text~strom or note~(?-i)GAS or date 2026-01-01..2026-12-31 then category='utilities'

                """, "\(listed)")
            let json = try ann.succeed(["rule", "list", "--json"])
            #expect(json.contains(#""regex" : "^(rewe|edeka) ""#) && json.contains(#""match" : "any""#)
                    && json.contains(#""action" : "setCategory""#) && json.contains(#""from" : "50""#), "\(json)")

            let before = try Self.positions(ann)
            let moved = try ann.run(["rule", "move", String(third.prefix(8)), "--before", String(first.prefix(6))])
            #expect(moved.status == 0 && moved.stderr.contains("now runs before 'groceries'"), "\(moved)")
            let after = try Self.positions(ann)
            #expect(after[first] == before[first] && after[second] == before[second] && after[third] != before[third])
            #expect(try ann.succeed(["rule", "list"]).hasPrefix("1. \(third.prefix(8))"))
            // Moving into the same gap again and again: positions halve, then the rules are spaced again.
            for _ in 0..<40 { try ann.succeed(["rule", "move", String(second.prefix(8)), "--before", String(first.prefix(8))]) ; try ann.succeed(["rule", "move", String(first.prefix(8)), "--before", String(second.prefix(8))]) }
            let order = try ann.succeed(["rule", "list"]).split(separator: "\n").map { String($0.dropFirst(3).prefix(8)) }
            #expect(order == [String(third.prefix(8)), String(first.prefix(8)), String(second.prefix(8))], "\(order)")

            let removed = try ann.run(["rule", "remove", String(second.prefix(8))])
            #expect(removed.status == 0 && removed.stderr.contains("Removed rule"), "\(removed)")
            #expect(try ann.run(["rule", "remove", String(second.prefix(8))]).status == 1)
            #expect(try !ann.succeed(["rule", "list"]).contains(String(second.prefix(8))))
            for command in ["add", "list", "remove", "move", "apply"] {
                let help = try ann.run(["rule", command, "--help"])
                #expect(help.status == 0 && help.stdout.contains("USAGE: expense rule \(command)"), "\(help)")
            }
        }
    }

    @Test("a bad regex is refused naming its position, a hostile one is bounded, a part or a tag is checked as an expense's")
    func refusals() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let unclosed = try ann.run(["rule", "add", "--match", "text~rewe (markt", "--set-category", "food"])
            #expect(unclosed.status == 65 && unclosed.stderr.hasPrefix("Error: invalid_regex: regex: unclosed group at position 6\n"), "\(unclosed)")
            let huge = try ann.run(["rule", "add", "--match", "note~(a{1000}){1000}", "--set-category", "food"])
            #expect(huge.status == 65 && huge.stderr.hasPrefix("Error: invalid_regex: regex: the pattern compiles to"), "\(huge)")
            let tag = try ann.run(["rule", "add", "--match", "note~x", "--add-tag", "two words"])
            #expect(tag.status == 65 && tag.stderr.contains("invalid_value"), "a tag no expense could hold: \(tag)")
            let part = try ann.run(["rule", "add", "--match", "note~x", "--part", "household"])
            #expect(part.status != 0, "a part is CATEGORY=AMOUNT: \(part)")
            for arguments in [["--match", "payee~x", "--set-category", "a"], ["--set-category", "a"], ["--match", "note~x"],
                              ["--match", "note~x", "--amount-from", "1,5", "--set-category", "a"]] {
                #expect(try ann.run(["rule", "add"] + arguments).status == 64, "\(arguments)")
            }
            #expect(try ann.run(["rule", "add", "--match", "note~x", "--set-paid-by", "nobody"]).status == 65)
            #expect(try ann.run(["rule", "add", "--match", "note~x", "--set-category", ""]).status == 65)
            #expect(try ann.succeed(["rule", "list", "--json"]) == "[]\n", "nothing refused was stored")

            // `(a+)+$` against a note of 300 a's and a '!' ends at once: the simulation is linear.
            try ann.succeed(["rule", "add", "--match", "note~(a+)+$", "--match", "text~(a|a)*b", "--any", "--set-category", "hostile"])
            try ann.succeed(["add", "1", "misc", "--note", String(repeating: "a", count: 299) + "!"])
            let applied = try ann.run(["rule", "apply"])
            #expect(applied.status == 0 && applied.stdout == "0 expenses changed by rules\n", "\(applied)")
        }
    }

    @Test("a German bank CSV with --map: rules chain, --any, --dry-run shows each row and its rules and writes nothing")
    func germanBankImport() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let file = ann.directory + "/umsaetze.csv"
            try """
                Buchungstag;Valuta;Buchungstext;Verwendungszweck;Betrag\r
                02.12.2026;02.12.2026;Kartenzahlung;REWE SAGT DANKE 4711;23,45\r
                03.12.2026;03.12.2026;Lastschrift;Stadtwerke Strom Abschlag;60,00\r
                04.12.2026;04.12.2026;Kartenzahlung;EDEKA Center;75,10\r
                05.12.2026;05.12.2026;Kartenzahlung;Kiosk;3,50\r

                """.write(toFile: file, atomically: true, encoding: .utf8)
            let options = ["--map", "date=Buchungstag,amount=Betrag,category=Buchungstext,note=Verwendungszweck",
                           "--currency", "EUR", "--delimiter", ";", "--decimal-comma", "--date-format", "DD.MM.YYYY"]
            // Without rules, import is as before.
            let plain = try ann.run(["import", file, "--dry-run"] + options)
            #expect(plain.status == 0 && plain.stdout == "4 new, 0 already present, 0 differing\n", "\(plain)")
            let none = try ann.run(["import", file, "--dry-run", "--rules"] + options)
            #expect(none.status == 1 && none.stderr.hasPrefix("Error: no_rules:"), "\(none)")

            try ann.succeed(["rule", "add", "--name", "groceries", "--match", "text~^(rewe|edeka) ", "--set-category", "groceries"])
            // A chain: this one matches what the first one set.
            try ann.succeed(["rule", "add", "--name", "big shop", "--match", "category=GROCERIES", "--amount-from", "50",
                             "--set-note", "Wocheneinkauf"])
            try ann.succeed(["rule", "add", "--name", "energy", "--any", "--match", "text~strom", "--match", "text~gas",
                             "--set-category", "utilities"])
            let dry = try ann.run(["import", file, "--dry-run"] + options, environment: Self.environment)
            #expect(dry.status == 0 && dry.stdout == """
                line 2  2026-12-02  23.45 EUR  'REWE SAGT DANKE 4711'  category 'Kartenzahlung' -> 'groceries'  by 'groceries'
                line 3  2026-12-03  60.00 EUR  'Stadtwerke Strom Abschlag'  category 'Lastschrift' -> 'utilities'  by 'energy'
                line 4  2026-12-04  75.10 EUR  'EDEKA Center'  category 'Kartenzahlung' -> 'groceries'; note 'EDEKA Center' -> 'Wocheneinkauf'  by 'groceries', 'big shop'
                line 5  2026-12-05  3.50 EUR  'Kiosk'  no rule
                4 new, 0 already present, 0 differing; 3 changed by rules

                """, "\(dry)")
            #expect(dry.stderr.contains("Dry run: nothing stored."))
            #expect(try ann.succeed(["list", "--json"]) == "[]\n", "a dry run writes nothing")

            #expect(try ann.succeed(["import", file] + options) == "4 new, 0 already present, 0 differing; 3 changed by rules\n")
            let listed = try ann.succeed(["list", "--json"])
            #expect(listed.contains(#""category" : "utilities""#) && listed.contains(#""note" : "Wocheneinkauf""#)
                    && listed.contains(#""category" : "Kiosk""#) == false && listed.contains(#""category" : "Kartenzahlung""#), "\(listed)")
            // The ids come from the file's values, so importing it again with the same rules adds nothing.
            #expect(try ann.succeed(["import", file] + options) == "0 new, 4 already present, 0 differing; 3 changed by rules\n")

            let other = try ExpenseProcess()
            #expect(try other.succeed(["import", file, "--no-rules"] + options) == "4 new, 0 already present, 0 differing\n")
            #expect(try ann.run(["import", file, "--rules", "--no-rules"] + options).status == 64)
        }
    }

    @Test("rule apply previews with --dry-run (nothing stored), then edits through the queue; --from/--to pick the days")
    func applyToExisting() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let rewe = Self.id(try ann.succeed(["add", "12.50", "misc", "--note", "REWE Markt", "--date", "2026-11-30"]))
            let edeka = Self.id(try ann.succeed(["add", "80", "misc", "--note", "edeka", "--date", "2026-12-02"]))
            try ann.succeed(["add", "3", "misc", "--note", "kiosk", "--date", "2026-12-02"])
            try ann.succeed(["rule", "add", "--name", "shops", "--match", "note~rewe|edeka", "--set-category", "groceries"])
            let before = try ann.succeed(["list", "--json"])
            let dry = try ann.run(["rule", "apply", "--dry-run"], environment: Self.environment)
            #expect(dry.status == 0 && dry.stdout == """
                \(rewe.prefix(8))  2026-11-30  12.50 USD  'REWE Markt'  category 'misc' -> 'groceries'  by 'shops'
                \(edeka.prefix(8))  2026-12-02  80.00 USD  'edeka'  category 'misc' -> 'groceries'  by 'shops'
                2 expenses would be changed by rules

                """, "\(dry)")
            #expect(try ann.succeed(["list", "--json"]) == before, "a dry run writes nothing")
            let applied = try ann.run(["rule", "apply", "--from", "2026-12-01", "--to", "2026-12-31"])
            #expect(applied.status == 0 && applied.stdout.hasSuffix("1 expense changed by rules\n"), "\(applied)")
            let listed = try ann.succeed(["list", "--json"])
            #expect(listed.components(separatedBy: #""category" : "groceries""#).count == 2, "\(listed)")
            #expect(try ann.succeed(["rule", "apply"]).hasSuffix("1 expense changed by rules\n"))
            #expect(try ann.succeed(["rule", "apply"]) == "0 expenses changed by rules\n")
        }
    }

    @Test("--add-tag adds its tags once, beside the ones an expense has; a second apply changes nothing")
    func addTag() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let hotel = Self.id(try ann.succeed(["add", "120", "misc", "--note", "Hotel Adler", "--tag", "work"]))
            try ann.succeed(["add", "5", "misc", "--note", "kiosk"])
            try ann.succeed(["rule", "add", "--match", "note~hotel", "--add-tag", "trip-2026", "--add-tag", "work"])
            let dry = try ann.run(["rule", "apply", "--dry-run"], environment: Self.environment)
            #expect(dry.status == 0 && dry.stdout.contains("trip-2026") && dry.stdout.hasSuffix("1 expense would be changed by rules\n"), "\(dry)")
            #expect(try ann.succeed(["rule", "apply"]).hasSuffix("1 expense changed by rules\n"))
            let tagged = try JSONParser.parse(Array(try ann.succeed(["list", "--tag", "trip-2026", "--json"]).utf8))
            let expenses = try #require(tagged.arrayValue)
            #expect(expenses.count == 1 && expenses.first?["id"]?.stringValue == hotel, "\(tagged)")
            #expect(expenses.first?["tags"] == .array([.string("trip-2026"), .string("work")]), "work stays one tag: \(tagged)")
            #expect(try ann.succeed(["rule", "apply"]) == "0 expenses changed by rules\n")
        }
    }

    @Test("--part books part of a matched expense in another category, counted there by summary; one that does not fit is refused")
    func part() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            try ann.succeed(["add", "10", "misc", "--note", "DM Drogerie", "--date", "2026-12-01"])
            try ann.succeed(["add", "1.50", "misc", "--note", "dm", "--date", "2026-12-02"])
            try ann.succeed(["rule", "add", "--match", "note~^dm", "--part", "household=2.00"])
            let applied = try ann.run(["rule", "apply"])
            #expect(applied.status != 0 && applied.stderr.contains("invalid_parts"), "1.50 cannot hold a part of 2.00: \(applied)")
            #expect(try ann.succeed(["rule", "apply", "--to", "2026-12-01"]).hasSuffix("1 expense changed by rules\n"))
            let summary = try ann.succeed(["summary", "--by", "category", "--from", "2026-12-01", "--to", "2026-12-01"])
            #expect(summary.contains("household") && summary.contains("2.00") && summary.contains("8.00"), "\(summary)")
        }
    }

    @Test("rules sync between two machines; one rule moved on both is a conflict of its position, resolved like a budget")
    func twoMachines() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann, bob])
            defer { _ = daemon.stop() }
            let first = Self.id(try ann.succeed(["rule", "add", "--name", "one", "--match", "note~a", "--set-category", "a"]))
            let second = Self.id(try ann.succeed(["rule", "add", "--name", "two", "--match", "note~b", "--set-category", "b"]))
            let third = Self.id(try ann.succeed(["rule", "add", "--name", "three", "--match", "note~c", "--set-category", "c"]))
            try ann.succeed(["sync"])
            try bob.succeed(["sync"])
            #expect(try bob.succeed(["rule", "list"]) == (try ann.succeed(["rule", "list"])))
            // A rule pulled from the other machine runs on this machine's import.
            let file = bob.directory + "/rows.csv"
            try "date,amount,currency,category,note\n2026-12-01,1.00,EUR,misc,b\n".write(toFile: file, atomically: true, encoding: .utf8)
            #expect(try bob.succeed(["import", file]) == "1 new, 0 already present, 0 differing; 1 changed by rules\n")

            try ann.succeed(["rule", "move", String(third.prefix(8)), "--before", String(first.prefix(8))])
            try bob.succeed(["rule", "move", String(third.prefix(8)), "--before", String(second.prefix(8))])
            try ann.succeed(["sync"])
            let conflicted = try bob.run(["sync"])
            #expect(conflicted.status == 3 && conflicted.stdout.contains("conflicts 1"), "\(conflicted)")
            let listed = try bob.run(["conflicts"], environment: Self.environment)
            #expect(listed.stdout.hasPrefix("\(third)  rule\n") && listed.stdout.contains("position"), "\(listed)")
            #expect(try bob.succeed(["rule", "list"]).contains("CONFLICT"))
            let resolved = try bob.run(["resolve", String(third.prefix(8)), "--mine"])
            #expect(resolved.status == 0, "\(resolved)")
            try bob.succeed(["sync"])
            try ann.succeed(["sync"])
            let order = try ann.succeed(["rule", "list"]).split(separator: "\n").map { String($0.dropFirst(3).prefix(8)) }
            #expect(order == [first, third, second].map { String($0.prefix(8)) }, "bob's move kept: \(order)")
            // The daemon's history names each change of a rule, as of any record.
            let log = try ann.succeed(["log"])
            #expect(log.contains(" rule") && log.contains(String(third.prefix(8))), "\(log)")
            // A removal syncs too.
            try ann.succeed(["rule", "remove", String(second.prefix(8))])
            try ann.succeed(["sync"])
            try bob.succeed(["sync"])
            #expect(try !bob.succeed(["rule", "list"]).contains(String(second.prefix(8))))
        }
    }
}
