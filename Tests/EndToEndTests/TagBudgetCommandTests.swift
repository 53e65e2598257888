import TestSupport
import Foundation
import Testing

/// `expense budget set|list|status|remove --tag` as a real process: a budget of the expenses carrying a tag.
@Suite struct TagBudgetCommandTests {
    static let env = ["LC_ALL": "C"]

    @Test("a tag budget counts each tagged expense whole, parts or not; list shows tag:TAG; add warns when it goes over")
    func tagBudget() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            try ann.succeed(["config", "set", "currency", "EUR"])
            let id = try ann.succeed(["budget", "set", "--tag", "trip-2026", "100", "--start", "2026-03-01"], environment: Self.env)
            #expect(UUID(uuidString: id.trimmingCharacters(in: .newlines)) != nil)
            // A category budget of the same text is another budget, with another id.
            let category = try ann.succeed(["budget", "set", "trip-2026", "40", "--start", "2026-03-01"], environment: Self.env)
            #expect(category != id)
            try ann.succeed(["budget", "set", "pharmacy", "50", "--start", "2026-03-01"], environment: Self.env)
            // 84.20 with parts, on the trip: the tag budget counts all of it, the pharmacy budget its part.
            let receipt = try ann.run(["add", "84.20", "food", "--part", "household=12.30", "--part", "pharmacy=9.90",
                                       "--tag", "trip-2026", "--date", "2026-03-04"], environment: Self.env)
            #expect(receipt.status == 0 && receipt.stderr.isEmpty, "\(receipt)")
            try ann.succeed(["add", "7", "food", "--date", "2026-03-05"])  // no tag: not counted
            try ann.succeed(["add", "7", "food", "--tag", "trip-2026", "--currency", "USD", "--date", "2026-03-05"])  // USD: not counted
            let over = try ann.run(["add", "20", "travel", "--tag", "trip-2026", "--date", "2026-03-06"], environment: Self.env)
            #expect(over.status == 0, "\(over)")
            #expect(over.stderr == "Warning: the 'tag:trip-2026' budget is over by 4.20 EUR for 2026-03-01 to 2026-03-31.\n", "\(over)")
            // Set again: the same budget (its id), a new amount from April; March keeps 100.
            let again = try ann.succeed(["budget", "set", "--tag", "trip-2026", "150", "--from", "2026-04-01"], environment: Self.env)
            #expect(again == id)
            let status = try ann.succeed(["budget", "status", "--on", "2026-03-31"], environment: Self.env)
            // Category budgets first, then tag budgets; names padded to the longest.
            #expect(status == "pharmacy       EUR  2026-03-01 to 2026-03-31  budgeted 50.00, spent 9.90, left 40.10\n"
                    + "trip-2026      EUR  2026-03-01 to 2026-03-31  budgeted 40.00, spent 0.00, left 40.00\n"
                    + "tag:trip-2026  EUR  2026-03-01 to 2026-03-31  budgeted 100.00, spent 104.20, left -4.20  OVER\n", "\(status)")
            let json = try ann.succeed(["budget", "status", "--on", "2026-03-31", "--json"])
            #expect(json.contains(#""tag" : "trip-2026""#) && json.contains(#""spent" : 10420"#), "\(json)")
            let list = try ann.succeed(["budget", "list"], environment: Self.env)
            #expect(list.contains("tag:trip-2026") && list.split(separator: "\n").count == 3, "\(list)")
            let april = try ann.succeed(["budget", "status", "--on", "2026-04-15", "--json"])
            #expect(april.contains(#""budgeted" : 15000"#), "\(april)")
            let listJSON = try ann.succeed(["budget", "list", "--json"])
            #expect(listJSON.contains(#""tag" : "trip-2026""#) && listJSON.contains(#""category" : "trip-2026""#), "\(listJSON)")
            try ann.succeed(["budget", "remove", "--tag", "trip-2026"])
            let after = try ann.succeed(["budget", "list"], environment: Self.env)
            #expect(!after.contains("tag:") && after.contains("trip-2026"), "\(after)")
            let gone = try ann.run(["budget", "remove", "--tag", "trip-2026"])
            #expect(gone.status == 1 && gone.stderr.contains("not_found"), "\(gone)")
        }
    }

    /// Each wrong shape and its exit code: 64 for usage, 65 for a tag an expense could not carry.
    static let wrongShapes: [([String], Int32)] = [
        (["budget", "set", "--tag", "trip", "food", "100"], 64),
        (["budget", "set", "--tag", "trip"], 64),
        (["budget", "set", "food"], 64),
        (["budget", "set"], 64),
        (["budget", "remove"], 64),
        (["budget", "remove", "food", "--tag", "trip"], 64),
        (["budget", "set", "--tag", "two words", "100"], 65),
        (["budget", "set", "--tag", "a,b", "100"], 65),
    ]

    @Test("exactly one of category and --tag; a tag is checked as an expense's", arguments: wrongShapes)
    func usage(arguments: [String], status: Int32) async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let result = try ann.run(arguments + ["--currency", "EUR"])
            #expect(result.status == status, "\(result)")
            if status == 65 { #expect(result.stderr.contains("invalid_tags"), "\(result)") }
            if status == 64 { #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains("Usage:"), "\(result)") }
        }
    }

    @Test("budget status --in counts a tagged expense of any currency, converted, against the limit converted")
    func converted() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            try ann.succeed(["config", "set", "currency", "EUR"])
            try ann.succeed(["rate", "set", "2026-01-01", "USD", "EUR", "0.50"])
            try ann.succeed(["budget", "set", "--tag", "trip", "100", "--start", "2026-03-01"])
            try ann.succeed(["add", "40", "food", "--tag", "trip", "--date", "2026-03-04"])
            try ann.succeed(["add", "20", "travel", "--tag", "trip", "--currency", "USD", "--date", "2026-03-05"])
            try ann.succeed(["add", "99", "travel", "--currency", "USD", "--date", "2026-03-05"])  // no tag
            let local = try ann.succeed(["budget", "status", "--on", "2026-03-31", "--json"])
            #expect(local.contains(#""spent" : 4000"#), "\(local)")
            let converted = try ann.succeed(["budget", "status", "--on", "2026-03-31", "--in", "EUR", "--json"])
            #expect(converted.contains(#""tag" : "trip""#) && converted.contains(#""spent" : 5000"#), "\(converted)")
        }
    }

    @Test("the HTML report's budget section shows a tag budget")
    func report() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            try ann.succeed(["config", "set", "currency", "EUR"])
            try ann.succeed(["budget", "set", "--tag", "trip", "100", "--start", "2026-03-01"])
            try ann.succeed(["add", "40", "food", "--tag", "trip", "--date", "2026-03-04"])
            let html = ann.directory + "/report.html"
            try ann.succeed(["report", "--output", html, "--from", "2026-03-01", "--to", "2026-03-31"])
            let text = try String(contentsOfFile: html, encoding: .utf8)
            #expect(text.contains("<bdi>tag:trip</bdi>"), "\(text)")
            // Limited to a tag, the report shows only the budgets of that tag: a category budget's spending
            // counts every expense of it, which the rest of such a report leaves out.
            try ann.succeed(["budget", "set", "food", "300", "--start", "2026-03-01"])
            try ann.succeed(["budget", "set", "--tag", "work", "50", "--start", "2026-03-01"])
            try ann.succeed(["add", "70", "food", "--date", "2026-03-05"])
            try ann.succeed(["report", "--output", html, "--from", "2026-03-01", "--to", "2026-03-31", "--tag", "trip"])
            let tagged = try String(contentsOfFile: html, encoding: .utf8)
            #expect(tagged.contains("<bdi>tag:trip</bdi>") && !tagged.contains("<bdi>tag:work</bdi>")
                    && !tagged.contains("300.00"), "\(tagged)")
            try ann.succeed(["report", "--output", html, "--from", "2026-03-01", "--to", "2026-03-31"])
            let all = try String(contentsOfFile: html, encoding: .utf8)
            #expect(all.contains("<bdi>tag:work</bdi>") && all.contains("300.00"), "every budget without --tag")
        }
    }
}

/// A tag budget between two real caches through a real `expensed`.
@Suite struct TagBudgetSyncTests {
    @Test("a tag budget set on one machine is seen on the other after sync, and counts that machine's tagged expenses")
    func tagBudgetSyncs() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann, bob])
            defer { _ = daemon.stop() }
            let id = try ann.succeed(["budget", "set", "--tag", "trip", "100", "--currency", "EUR", "--start", "2026-03-01"])
            let first = try ann.run(["sync"])
            #expect(first.status == 0 && first.stdout == "pushed 1, pulled 0, conflicts 0\n", "\(first)")
            try bob.succeed(["add", "30", "food", "--currency", "EUR", "--tag", "trip", "--date", "2026-03-04"])
            let second = try bob.run(["sync"])
            #expect(second.status == 0 && second.stdout == "pushed 1, pulled 1, conflicts 0\n", "\(second)")
            let listed = try bob.succeed(["budget", "list", "--json"])
            #expect(listed.contains(#""tag" : "trip""#) && listed.contains(id.trimmingCharacters(in: .newlines)), "\(listed)")
            let status = try bob.succeed(["budget", "status", "--on", "2026-03-31", "--json"])
            #expect(status.contains(#""spent" : 3000"#), "\(status)")
        }
    }
}
