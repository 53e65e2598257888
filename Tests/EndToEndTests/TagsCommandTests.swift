import TestSupport
import ExpenseProtocol
import Foundation
import Testing

/// `add … --tag T`, `edit --tag | --no-tags`, the `--tag` filters, `tag list`, and tag sets merging across
/// machines, through the real binaries (docs/usage.md, "Tags").
@Suite struct TagsCommandTests {
    static let environment = ["LC_ALL": "C"]

    /// `list --json` of `person`, by id.
    static func listed(_ person: ExpenseProcess, _ arguments: [String] = []) throws -> [String: [String: Any]] {
        let text = try person.succeed(["list", "--json"] + arguments)
        let array = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], "\(text)")
        return Dictionary(uniqueKeysWithValues: array.compactMap { object in (object["id"] as? String).map { ($0, object) } })
    }

    /// The tags `list --json` shows for `id` (none: empty).
    static func tags(_ person: ExpenseProcess, _ id: String) throws -> [String] {
        try listed(person)[id]?["tags"] as? [String] ?? []
    }

    /// The first total of `summary --json` with `arguments`, as "AMOUNT CODE".
    static func total(_ person: ExpenseProcess, _ arguments: [String]) throws -> String {
        let text = try person.succeed(["summary", "--json"] + arguments)
        let object = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let totals = try #require(object["totals"] as? [[String: Any]], "\(text)")
        return totals.map { "\($0["amount"] ?? "") \($0["currency"] ?? "")" }.joined(separator: ", ")
    }

    static func add(_ person: ExpenseProcess, _ arguments: [String]) throws -> String {
        try person.succeed(["add"] + arguments).trimmingCharacters(in: .newlines)
    }

    @Test("tags are a sorted set: add, list (TAGS column and --json), edit replaces them, --no-tags removes them")
    func tagsOnExpenses() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let untagged = try Self.add(ann, ["5", "food", "--date", "2026-03-01"])
            let plain = try ann.succeed(["list"], environment: Self.environment)
            #expect(!plain.contains("TAGS"), "\(plain)")
            let id = try Self.add(ann, ["12.50", "food", "--date", "2026-03-02", "--tag", "work", "--tag", "trip-2026", "--tag", "work"])
            #expect(try Self.tags(ann, id) == ["trip-2026", "work"])
            #expect(try Self.listed(ann)[untagged]?["tags"] == nil)
            let table = try ann.succeed(["list"], environment: Self.environment)
            #expect(table.contains("TAGS") && table.contains("trip-2026,work"), "\(table)")
            try ann.succeed(["edit", String(id.prefix(8)), "--tag", "home"])
            #expect(try Self.tags(ann, id) == ["home"])
            try ann.succeed(["edit", String(id.prefix(8)), "--no-tags"])
            #expect(try Self.tags(ann, id) == [])
            let both = try ann.run(["edit", String(id.prefix(8)), "--tag", "a", "--no-tags"])
            #expect(both.status == 64 && both.stderr.contains("contradict"), "\(both)")
            // `#word` in a note is not a tag.
            let noted = try Self.add(ann, ["3", "food", "--note", "#coffee"])
            #expect(try Self.tags(ann, noted) == [])
        }
    }

    @Test("a tag with whitespace, a comma or a control character, longer than 32, or a 17th tag is refused (exit 65, invalid_tags)",
          arguments: [["a b"], ["a,b"], ["tab\there"], [""], [String(repeating: "x", count: 33)], (1...17).map { "t\($0)" }])
    func refusedLocally(_ tags: [String]) async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let refused = try ann.run(["add", "1", "food"] + tags.flatMap { ["--tag", $0] })
            #expect(refused.status == 65 && refused.stderr.contains("invalid_tags"), "\(refused)")
            #expect(try Self.listed(ann).isEmpty)
        }
    }

    @Test("32 characters and 16 tags are accepted; NFC and NFD spellings are two tags")
    func limitsAccepted() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let long = String(repeating: "é", count: 32)
            let id = try Self.add(ann, ["1", "food", "--tag", long] + (1...15).flatMap { ["--tag", "t\($0)"] })
            #expect(try Self.tags(ann, id).count == 16)
            let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
            let both = try Self.add(ann, ["1", "food", "--tag", nfc, "--tag", nfd])
            #expect(try Self.tags(ann, both).count == 2)
        }
    }

    @Test("--tag filters list, summary, stats and report (every tag given); tag list counts and totals per currency")
    func filtersAndTagList() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            try ann.succeed(["config", "set", "currency", "EUR"])
            let both = try Self.add(ann, ["12.50", "food", "--date", "2026-03-02", "--tag", "trip-2026", "--tag", "work"])
            let trip = try Self.add(ann, ["30", "hotel", "--date", "2026-03-03", "--tag", "trip-2026"])
            let taxi = try Self.add(ann, ["20", "taxi", "--date", "2026-03-04", "--currency", "USD", "--tag", "trip-2026"])
            _ = try Self.add(ann, ["7", "food", "--date", "2026-03-05"])
            #expect(Set(try Self.listed(ann, ["--tag", "trip-2026"]).keys) == [both, trip, taxi])
            #expect(Set(try Self.listed(ann, ["--tag", "trip-2026", "--tag", "work"]).keys) == [both])
            #expect(Set(try Self.listed(ann, ["--tag", "work", "--category", "hotel"]).keys).isEmpty)
            #expect(Set(try Self.listed(ann, ["--tag", "trip-2026", "--category", "hotel"]).keys) == [trip])
            let table = try ann.run(["list", "--tag", "nothing"])
            #expect(table.status == 0 && table.stdout.isEmpty && table.stderr.contains("No expenses"), "\(table)")
            #expect(try Self.total(ann, ["--tag", "trip-2026"]) == "4250 EUR, 2000 USD")
            #expect(try Self.total(ann, ["--tag", "work"]) == "1250 EUR")
            #expect(try Self.total(ann, ["--tag", "trip-2026", "--category", "food"]) == "1250 EUR")
            #expect(try Self.total(ann, []) == "4950 EUR, 2000 USD")
            let byCategory = try ann.succeed(["summary", "--tag", "trip-2026", "--by", "category"], environment: Self.environment)
            #expect(byCategory.contains("hotel") && byCategory.contains("taxi") && byCategory.contains("food"), "\(byCategory)")
            let stats = try ann.succeed(["stats", "--tag", "work", "--from", "2026-03-01", "--to", "2026-03-31", "--json"])
            #expect(stats.contains("1250") && !stats.contains("4950"), "\(stats)")
            let unfiltered = try ann.succeed(["stats", "--from", "2026-03-01", "--to", "2026-03-31", "--json"])
            #expect(unfiltered.contains("4950"), "\(unfiltered)")
            let report = ann.home + "/report.html"
            try ann.succeed(["report", "--output", report, "--from", "2026-03-01", "--to", "2026-03-31", "--tag", "work"])
            let html = try String(contentsOfFile: report, encoding: .utf8)
            #expect(html.contains("12.50") && !html.contains("49.50") && !html.contains("USD"), "report")
            // A tag no expense can have is a data error.
            let bad = try ann.run(["list", "--tag", "a b"])
            #expect(bad.status == 65 && bad.stderr.contains("invalid_tags"), "\(bad)")

            let text = try ann.succeed(["tag", "list"], environment: Self.environment)
            #expect(text == "TAG        COUNT  TOTALS\ntrip-2026      3  42.50 EUR, 20.00 USD\nwork           1  12.50 EUR\n", "\(text)")
            let json = try #require(JSONSerialization.jsonObject(with: Data(try ann.succeed(["tag", "list", "--json"]).utf8)) as? [[String: Any]])
            #expect(json.map { $0["tag"] as? String } == ["trip-2026", "work"])
            #expect(json.first?["count"] as? Int == 3)
            let totals = try #require(json.first?["totals"] as? [[String: Any]])
            #expect(totals.count == 2 && totals.reduce(0) { $0 + ($1["amount"] as? Int ?? 0) } == 6250, "\(totals)")
        }
    }

    @Test("export writes a tags column; import reads it back, and a file without it still imports")
    func csvRoundTrip() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let id = try Self.add(ann, ["12.50", "food", "--date", "2026-03-02", "--tag", "work", "--tag", "trip-2026"])
            let exported = try ann.succeed(["export"])
            #expect(exported.hasPrefix("id,date,amount,currency,category,note,paid_by,split,charged,tags,parts,source\n"), "\(exported)")
            #expect(exported.contains(#""trip-2026,work""#), "\(exported)")
            let file = ann.home + "/tags.csv"
            try ann.succeed(["export", "--output", file])
            let bob = try ExpenseProcess()
            #expect(try bob.succeed(["import", file]) == "1 new, 0 already present, 0 differing\n")
            #expect(try Self.tags(bob, id) == ["trip-2026", "work"])
            let old = bob.home + "/old.csv"
            try "date,amount,currency,category,note\n2026-03-03,4.00,EUR,food,tea\n".write(toFile: old, atomically: true, encoding: .utf8)
            #expect(try bob.succeed(["import", old]) == "1 new, 0 already present, 0 differing\n")
        }
    }
}
