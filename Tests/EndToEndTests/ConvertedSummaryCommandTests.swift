import TestSupport
import Foundation
import Testing

/// `expense summary --in CODE [--at …]` through the real binary: which rate each amount takes (direct, inverse,
/// through the ledger's currency, none), never a later one, each amount rounded once, and what is left out.
@Suite struct ConvertedSummaryCommandTests {
    static let environment = ["LC_ALL": "C"]

    /// A EUR ledger: 10.00 EUR, 5.00 USD, 1000 JPY, 120.00 CHF and 3.00 GBP, with rates USD→EUR (direct into EUR),
    /// EUR→JPY (so JPY→EUR is its inverse), GBP→EUR dated after the GBP expense, and none for CHF.
    static func ledger() throws -> ExpenseProcess {
        let ann = try ExpenseProcess()
        try ann.succeed(["config", "set", "currency", "EUR"])
        try ann.succeed(["add", "10.00", "food", "--date", "2026-03-05"])
        try ann.succeed(["add", "5.00", "food", "--currency", "USD", "--date", "2026-02-01"])
        try ann.succeed(["add", "1000", "travel", "--currency", "JPY", "--date", "2026-03-06"])
        try ann.succeed(["add", "120.00", "food", "--currency", "CHF", "--date", "2026-03-04"])
        try ann.succeed(["add", "3.00", "travel", "--currency", "GBP", "--date", "2026-01-10"])
        try ann.succeed(["rate", "set", "2026-01-01", "USD", "EUR", "0.92"])
        try ann.succeed(["rate", "set", "2026-03-01", "EUR", "JPY", "160.5"])
        try ann.succeed(["rate", "set", "2026-04-01", "EUR", "JPY", "150"])
        try ann.succeed(["rate", "set", "2026-02-01", "GBP", "EUR", "1.17"])
        return ann
    }

    @Test("--in EUR: direct, inverse and identity; a rate dated after the expense is never used; no rate means listed apart, never 1")
    func lookupOrder() async throws {
        try await onOwnThread {
            let ann = try Self.ledger()
            // 10.00 EUR; 5.00 USD × 0.92 = 4.60; 1000 JPY / 160.5 = 6.2305 → 6.23 (the 150 of April is later);
            // 3.00 GBP has only a rate from after its day, and 120.00 CHF none: both left out.
            let result = try ann.run(["summary", "--in", "EUR", "--by", "category"], environment: Self.environment)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout == """
                EUR  20.83  (3 expenses)
                  food    14.60   70.1%
                  travel   6.23   29.9%
                plus 120.00 CHF not converted: no CHF rate into EUR on or before 2026-03-04
                plus 3.00 GBP not converted: no GBP rate into EUR on or before 2026-01-10

                """, "\(result.stdout)")
            #expect(result.stderr.contains("2 amounts were not converted into EUR"), "\(result.stderr)")
        }
    }

    @Test("--in USD goes through the ledger's currency; --at DATE and --at end value every amount on another day")
    func throughTheLedgerCurrencyAndValuation() async throws {
        try await onOwnThread {
            let ann = try Self.ledger()
            // 10.00 EUR / 0.92 = 10.869… → 10.87 (inverse); 1000 JPY / 160.5 / 0.92 = 6.7723… → 6.77 (through EUR,
            // rounded once); 5.00 USD is itself: 22.64.
            #expect(try ann.succeed(["summary", "--in", "USD"], environment: Self.environment).hasPrefix("USD  22.64  (3 expenses)\n"))
            // At 2026-05-01 the April rate 150 serves JPY: 1000 / 150 = 6.666… → 6.67, and GBP's rate exists:
            // 3.00 × 1.17 = 3.51; 10.00 + 4.60 + 6.67 + 3.51 = 24.78.
            let fixed = try ann.succeed(["summary", "--in", "EUR", "--at", "2026-05-01", "--json"])
            let object = try #require(JSONSerialization.jsonObject(with: Data(fixed.utf8)) as? [String: Any])
            let totals = try #require(object["totals"] as? [[String: Any]])
            #expect(totals.count == 1 && totals[0]["amount"] as? Int == 2478 && totals[0]["currency"] as? String == "EUR", "\(fixed)")
            #expect(object["in"] as? String == "EUR" && object["at"] as? String == "2026-05-01")
            let left = try #require(object["unconverted"] as? [[String: Any]])
            #expect(left.count == 1 && left[0]["currency"] as? String == "CHF" && left[0]["amount"] as? Int == 12000
                    && left[0]["reason"] as? String == "no_rate" && left[0]["count"] as? Int == 1, "\(fixed)")
            // --at end by month: each month's last day. March's JPY uses 160.5 (April's 150 is later than 03-31),
            // January's GBP is valued on 01-31, before the GBP rate: still left out.
            let end = try ann.succeed(["summary", "--in", "EUR", "--at", "end", "--by", "month", "--json"])
            let months = try #require((JSONSerialization.jsonObject(with: Data(end.utf8)) as? [String: Any])?["groups"] as? [[String: Any]])
            #expect(months.map { "\($0["key"] ?? "") \($0["amount"] ?? "")" } == ["2026-02 460", "2026-03 1623"], "\(end)")
            // A year away from any rate: nothing converts but EUR itself.
            let early = try ann.run(["summary", "--in", "EUR", "--at", "2025-01-01"], environment: Self.environment)
            #expect(early.stdout.hasPrefix("EUR  10.00  (1 expense)\n") && early.stderr.contains("4 amounts were not converted"), "\(early)")
        }
    }

    @Test("--server: the daemon converts its own records with its rates and its ledger's currency, as the client does over its copy")
    func serverConverts() async throws {
        try await onOwnThread {
            let ann = try Self.ledger()
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann])
            defer { _ = daemon.stop() }
            try ann.succeed(["sync"])
            for arguments in [["--in", "EUR", "--by", "category"], ["--in", "USD"], ["--in", "JPY", "--at", "end", "--by", "month"],
                              ["--in", "EUR", "--at", "2026-05-01", "--from", "2026-02-01"]] {
                let local = try ann.run(["summary"] + arguments, environment: Self.environment)
                let server = try ann.run(["summary", "--server"] + arguments, environment: Self.environment)
                #expect(server.status == 0 && server.stdout == local.stdout && server.stderr == local.stderr, "\(arguments): \(server) vs \(local)")
                let json = try ann.succeed(["summary", "--server", "--json"] + arguments)
                #expect(json == (try ann.succeed(["summary", "--json"] + arguments)), "\(arguments)")
            }
            #expect(try ann.succeed(["summary", "--server", "--in", "EUR"], environment: Self.environment).contains("plus 120.00 CHF not converted"))
            // Not synced yet: 10.00 USD × 0.92 = 9.20 more here, the daemon's figure unchanged.
            try ann.succeed(["add", "10.00", "food", "--currency", "USD", "--date", "2026-03-07"])
            #expect(try ann.succeed(["summary", "--in", "EUR"], environment: Self.environment).hasPrefix("EUR  30.03  (4 expenses)"))
            #expect(try ann.succeed(["summary", "--server", "--in", "EUR"], environment: Self.environment).hasPrefix("EUR  20.83  (3 expenses)"))
        }
    }

    @Test("--at without --in, a bad --at and an unknown --in are usage or validation errors; nothing converts at 1")
    func refusals() async throws {
        try await onOwnThread {
            let ann = try Self.ledger()
            let alone = try ann.run(["summary", "--at", "end"])
            #expect(alone.status == 64 && alone.stderr.contains("--in"), "\(alone)")
            let bad = try ann.run(["summary", "--in", "EUR", "--at", "tomorrow"])
            #expect(bad.status == 64 && bad.stderr.contains("--at must be then, end or a date"), "\(bad)")
            let unknown = try ann.run(["summary", "--in", "XXY"])
            #expect(unknown.status == 65 && unknown.stderr.contains("invalid_currency"), "\(unknown)")
            // A ledger with no rates at all: every other currency is listed apart, none is added at 1.
            let bob = try ExpenseProcess()
            try bob.succeed(["config", "set", "currency", "EUR"])
            try bob.succeed(["add", "7.00", "food", "--currency", "USD"])
            let none = try bob.run(["summary", "--in", "EUR"], environment: Self.environment)
            #expect(none.status == 0 && none.stdout.hasPrefix("plus 7.00 USD not converted: no USD rate into EUR"), "\(none)")
        }
    }
}
