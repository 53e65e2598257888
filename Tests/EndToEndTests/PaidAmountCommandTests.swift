import TestSupport
import Foundation
import Testing

/// `add … --paid AMOUNT` and `edit --paid | --no-paid` through the real binaries (docs/usage.md, "Rates"): the
/// amount charged in the ledger's currency overrides the rate of any conversion into that currency, locally and
/// on the daemon, and travels as money with the amount.
@Suite struct PaidAmountCommandTests {
    static let environment = ["LC_ALL": "C"]

    /// A EUR ledger with 120.00 CHF of food charged as 128.40 EUR on 2026-03-04, and no rate yet; its id.
    static func ledger() throws -> (ExpenseProcess, String) {
        let ann = try ExpenseProcess()
        try ann.succeed(["config", "set", "currency", "EUR"])
        let id = try ann.succeed(["add", "120", "food", "--currency", "CHF", "--paid", "128.40", "--date", "2026-03-04"])
            .trimmingCharacters(in: .newlines)
        return (ann, id)
    }

    /// The first total of `summary --json` with `arguments`, as "AMOUNT CODE".
    static func total(_ person: ExpenseProcess, _ arguments: [String]) throws -> String {
        let text = try person.succeed(["summary", "--json"] + arguments)
        let object = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let totals = try #require(object["totals"] as? [[String: Any]], "\(text)")
        return totals.map { "\($0["amount"] ?? "") \($0["currency"] ?? "")" }.joined(separator: ", ")
    }

    @Test("--paid counts exactly into the ledger's currency, with no rate, with a rate and at any --at; another currency takes the rates")
    func paidOverridesTheRate() async throws {
        try await onOwnThread {
            let (ann, id) = try Self.ledger()
            // No CHF rate at all: still converted, never left out.
            let none = try ann.run(["summary", "--in", "EUR"], environment: Self.environment)
            #expect(none.status == 0 && none.stdout == "EUR  128.40  (1 expense)\n" && !none.stderr.contains("not converted"), "\(none)")
            // A CHF rate exists: 120 × 0.95 would be 114.00, but the amount charged wins, on any valuation day.
            try ann.succeed(["rate", "set", "2026-01-01", "CHF", "EUR", "0.95"])
            try ann.succeed(["rate", "set", "2026-01-01", "EUR", "USD", "1.05"])
            #expect(try Self.total(ann, ["--in", "EUR"]) == "12840 EUR")
            #expect(try Self.total(ann, ["--in", "EUR", "--at", "2025-01-01"]) == "12840 EUR")
            // Into USD the rates convert the 120.00 CHF through EUR: 120 × 0.95 × 1.05 = 119.70.
            #expect(try Self.total(ann, ["--in", "USD"]) == "11970 USD")
            // Unconverted views are untouched.
            #expect(try Self.total(ann, []) == "12000 CHF")
            let table = try ann.succeed(["list"], environment: Self.environment)
            #expect(table.contains("CHARGED") && table.contains("128.40"), "\(table)")
            // It travels as a wire field: `charged` in minor units of the ledger's currency, and the CSV column.
            let listed = try #require(JSONSerialization.jsonObject(with: Data(try ann.succeed(["list", "--json"]).utf8)) as? [[String: Any]])
            #expect(listed.first?["charged"] as? Int == 12840, "\(listed)")
            #expect(try ann.succeed(["export"]) == "id,date,amount,currency,category,note,paid_by,split,charged,tags,parts,source\n\(id),2026-03-04,120.00,CHF,food,,,,12840,,,\n")
            // The export imports back with it, on another machine.
            let file = ann.home + "/paid.csv"
            try ann.succeed(["export", "--output", file])
            let bob = try ExpenseProcess()
            try bob.succeed(["config", "set", "currency", "EUR"])
            #expect(try bob.succeed(["import", file]) == "1 new, 0 already present, 0 differing\n")
            #expect(try Self.total(bob, ["--in", "EUR"]) == "12840 EUR")
            // --no-paid: the rate again; --paid on edit sets it anew.
            try ann.succeed(["edit", String(id.prefix(8)), "--no-paid"])
            #expect(try Self.total(ann, ["--in", "EUR"]) == "11400 EUR")
            let unset = try #require(JSONSerialization.jsonObject(with: Data(try ann.succeed(["list", "--json"]).utf8)) as? [[String: Any]])
            #expect(unset.first?["charged"] == nil, "\(unset)")
            try ann.succeed(["edit", String(id.prefix(8)), "--paid", "130"])
            #expect(try Self.total(ann, ["--in", "EUR"]) == "13000 EUR")
        }
    }

    @Test("--paid is refused on an expense in the ledger's currency, and with --no-paid; a bad amount is invalid_charged")
    func refusals() async throws {
        try await onOwnThread {
            let (ann, id) = try Self.ledger()
            let own = try ann.run(["add", "10", "food", "--paid", "10"])
            #expect(own.status == 65 && own.stderr.contains("invalid_charged") && own.stderr.contains("ledger's"), "\(own)")
            let eur = try ann.succeed(["add", "10", "food"]).trimmingCharacters(in: .newlines)
            let edited = try ann.run(["edit", String(eur.prefix(8)), "--paid", "11"])
            #expect(edited.status == 65 && edited.stderr.contains("invalid_charged"), "\(edited)")
            // Moving the CHF expense into EUR while it keeps its amount charged is refused too; with --no-paid it is not.
            let moved = try ann.run(["edit", String(id.prefix(8)), "--amount", "128.40", "--currency", "EUR"])
            #expect(moved.status == 65 && moved.stderr.contains("--no-paid"), "\(moved)")
            try ann.succeed(["edit", String(id.prefix(8)), "--amount", "128.40", "--currency", "EUR", "--no-paid"])
            let both = try ann.run(["edit", String(id.prefix(8)), "--paid", "1", "--no-paid"])
            #expect(both.status == 64 && both.stderr.contains("contradict"), "\(both)")
            let bad = try ann.run(["add", "5", "food", "--currency", "USD", "--paid", "1.234"])
            #expect(bad.status == 65 && bad.stderr.contains("invalid_charged"), "\(bad)")
        }
    }

    @Test("--server: the daemon's converted summary counts the amount charged as the client does")
    func serverConverts() async throws {
        try await onOwnThread {
            let (ann, _) = try Self.ledger()
            try ann.succeed(["add", "50", "travel", "--currency", "CHF", "--date", "2026-03-05"])
            try ann.succeed(["rate", "set", "2026-01-01", "CHF", "EUR", "0.95"])
            try ann.succeed(["rate", "set", "2026-01-01", "EUR", "USD", "1.05"])
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann], ["--currency", "EUR"])
            defer { _ = daemon.stop() }
            try ann.succeed(["sync"])
            // 128.40 charged + 50 × 0.95 = 47.50: 175.90 EUR; in USD both go by the rates, as locally.
            #expect(try Self.total(ann, ["--server", "--in", "EUR"]) == "17590 EUR")
            for arguments in [["--in", "EUR"], ["--in", "USD"], ["--in", "EUR", "--at", "2025-01-01"], ["--in", "CHF"]] {
                #expect(try Self.total(ann, ["--server"] + arguments) == (try Self.total(ann, arguments)), "\(arguments)")
            }
        }
    }

    @Test("offline: an amount edit and a --paid edit are a conflict; a note edit and a --paid edit are both kept")
    func moneyConflicts() async throws {
        try await onOwnThread {
            let (ann, id) = try Self.ledger()
            let (daemon, bob) = try DaemonProcess.sharedLedger(with: ann, currency: "EUR")
            defer { _ = daemon.stop() }
            try ann.succeed(["edit", String(id.prefix(8)), "--amount", "125"])
            try bob.succeed(["edit", String(id.prefix(8)), "--paid", "131"])
            try ann.succeed(["sync"])
            let conflicted = try bob.run(["sync"])
            #expect(conflicted.status == 3 && conflicted.stdout.contains("conflicts 1"), "\(conflicted)")
            // Both sides whole: money with the amount charged in the ledger's currency.
            let conflicts = try bob.succeed(["conflicts"], environment: Self.environment)
            #expect(conflicts.contains("120.00 CHF charged 131.00 EUR") && conflicts.contains("125.00 CHF charged 128.40 EUR"), "\(conflicts)")
            try bob.succeed(["resolve", String(id.prefix(8)), "--theirs"])

            let other = try ann.succeed(["add", "30", "food", "--currency", "CHF", "--date", "2026-03-06"]).trimmingCharacters(in: .newlines)
            try ann.succeed(["sync"]); try bob.succeed(["sync"])
            try ann.succeed(["edit", String(other.prefix(8)), "--note", "lunch"])
            try bob.succeed(["edit", String(other.prefix(8)), "--paid", "32.10"])
            try ann.succeed(["sync"]); try bob.succeed(["sync"]); try ann.succeed(["sync"])
            for person in [ann, bob] {
                let listed = try #require(JSONSerialization.jsonObject(with: Data(try person.succeed(["list", "--json"]).utf8)) as? [[String: Any]])
                let kept = try #require(listed.first { $0["id"] as? String == other })
                #expect(kept["note"] as? String == "lunch" && kept["charged"] as? Int == 3210, "\(kept)")
            }
            // The daemon's history shows it with money.
            let history = try ann.succeed(["history", String(other.prefix(8))], environment: Self.environment)
            #expect(history.contains("money 30.00 CHF → 30.00 CHF charged 32.10 EUR"), "\(history)")
        }
    }
}
