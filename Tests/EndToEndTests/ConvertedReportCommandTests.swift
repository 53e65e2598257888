import TestSupport
import Foundation
import Testing

/// `expense report --in CODE [--at then|end|DATE]` through the real binary, on ``ConvertedViewFixture``'s ledger:
/// one currency's report with converted totals, and a "Not converted" section.
@Suite struct ConvertedReportCommandTests {
    /// Writes the report of January and February 2026 with `extra` options and returns the HTML and the run.
    static func report(_ ann: ExpenseProcess, _ extra: [String]) throws -> (String, ExpenseProcess.Result) {
        let path = ann.directory + "/report-\(UUID().uuidString).html"
        let run = try ann.run(["report", "--output", path, "--from", "2026-01-01", "--to", "2026-02-28"] + extra,
                              environment: ConvertedViewFixture.environment)
        return ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "", run)
    }

    @Test("report --in EUR: one EUR section with converted totals, categories and budgets; the rest in 'Not converted'")
    func convertedThen() async throws {
        try await onOwnThread {
            let ann = try ConvertedViewFixture.ledger()
            try ann.succeed(["budget", "set", "food", "50.00", "--start", "2026-01-01"])
            try ann.succeed(["budget", "set", "travel", "100.00", "--currency", "CHF", "--start", "2026-01-01"])
            let (html, run) = try Self.report(ann, ["--in", "EUR"])
            #expect(run.status == 0, "\(run)")
            #expect(run.stderr.hasPrefix("Wrote ") && run.stderr.contains("(1 currency, 2026-01-01 to 2026-02-28)")
                    && run.stderr.hasSuffix(ConvertedViewFixture.note(1, into: "EUR")), "\(run)")
            // At then: E1 1000 + E2 2000 × 0.92 = 1840 + E3 1234 × 100 / 160 = 771.25 → 771 + E5 333 × 0.92 = 306.36
            // → 306 + E6 1200 × 0.92 = 1104 + E7 800 = 5821 over 6 expenses; food 1000 + 1840 + 1104 + 800 = 4744,
            // travel 771 + 306 = 1077.
            #expect(html.contains("<h2>EUR: 58.21 EUR <span class=\"meta\">(6 expenses)</span></h2>"), "\(html)")
            #expect(html.contains("47.44 EUR") && html.contains("10.77 EUR"), "categories")
            #expect(!html.contains("id=\"USD\"") && !html.contains("id=\"JPY\"") && !html.contains("id=\"CHF\""), "one currency")
            #expect(html.contains("Every amount converted into EUR with the ledger&#39;s rates, valued each at its own date."))
            // The food budget on the report's last day, 2026-02-28: February's food E7 800 + E6 1104 = 1904 spent.
            #expect(html.contains("<td><bdi>food (EUR budget)</bdi></td><td class=\"number\">2026-02-01 to 2026-02-28</td>"
                                  + "<td class=\"number\">50.00 EUR</td><td class=\"number\">0.00 EUR</td>"
                                  + "<td class=\"number\">19.04 EUR</td><td class=\"number\">30.96 EUR</td>"), "\(html)")
            #expect(html.contains("<h2>Not converted</h2>\n<ul>\n<li>plus 5.00 CHF not converted: no CHF rate into EUR on or before 2026-02-10</li>\n"
                                  + "<li>the &#39;travel&#39; budget in CHF is not shown: no CHF rate into EUR on or before 2026-02-28</li>\n</ul>"),
                    "\(html)")
            // Without --in: one section per currency, as before, and nothing about conversion.
            let (plain, _) = try Self.report(ann, [])
            #expect(plain.contains("id=\"USD\"") && plain.contains("Currencies are never added together.") && !plain.contains("Not converted"))
        }
    }

    @Test("report --at end values every amount at the range's end, --at DATE at that day: other totals")
    func convertedAtEndAndDate() async throws {
        try await onOwnThread {
            let ann = try ConvertedViewFixture.ledger()
            // --at end, 2026-02-28 (0.90): E1 1000 + E2 1800 + E3 771 + E5 299.7 → 300 + E6 1080 + E7 800 = 5751.
            let (end, endRun) = try Self.report(ann, ["--in", "EUR", "--at", "end"])
            #expect(endRun.status == 0 && end.contains("<h2>EUR: 57.51 EUR"), "\(endRun)")
            #expect(end.contains("valued all at 2026-02-28, the end of the range.")
                    && end.contains("no CHF rate into EUR on or before 2026-02-28"), "\(end)")
            // --at 2026-01-31 (0.92 for every USD amount): the totals of --at then, 5821.
            let (fixed, _) = try Self.report(ann, ["--in", "EUR", "--at", "2026-01-31"])
            #expect(fixed.contains("<h2>EUR: 58.21 EUR") && fixed.contains("valued all at 2026-01-31."), "\(fixed)")
            // --in USD: E3 through EUR (838), E1 1087, E7 870, E2 2000, E5 333, E6 1200 = 6328.
            let (usd, _) = try Self.report(ann, ["--in", "USD"])
            #expect(usd.contains("<h2>USD: 63.28 USD <span class=\"meta\">(6 expenses)</span></h2>"), "\(usd)")
            let (_, refused) = try Self.report(ann, ["--at", "end"])
            #expect(refused.status == 64 && refused.stderr.hasPrefix("Error: --at values amounts for --in"), "\(refused)")
        }
    }

    @Test("the largest expenses show the amount charged, and report --in EUR counts it whatever the rates (even with none)")
    func amountCharged() async throws {
        try await onOwnThread {
            let ann = try ConvertedViewFixture.ledger()
            // 120.00 CHF charged 128.40 EUR: CHF has no rate at all, so only the amount charged can convert it.
            try ann.succeed(["add", "120.00", "fondue", "--currency", "CHF", "--paid", "128.40", "--date", "2026-02-11", "--note", "Zermatt"])
            let (plain, run) = try Self.report(ann, [])
            #expect(run.status == 0, "\(run)")
            // Per currency: the CHF section lists it at 120.00 CHF with what was charged beside it; a section with no
            // amount charged has no such column.
            #expect(plain.contains("<th scope=\"col\" class=\"number\">Amount</th><th scope=\"col\" class=\"number\">Charged in EUR</th></tr>"),
                    "\(plain)")
            #expect(plain.contains("<td><bdi>Zermatt</bdi></td><td class=\"number\">120.00 CHF</td><td class=\"number\">128.40 EUR</td></tr>"),
                    "\(plain)")
            #expect(plain.contains("<td class=\"number\">5.00 CHF</td><td class=\"number\"></td></tr>"), "another CHF expense: \(plain)")
            #expect(plain.components(separatedBy: "Charged in EUR").count == 2, "only the CHF section: \(plain)")
            // Converted: 58.21 EUR (as in convertedThen) + 128.40 = 186.61 EUR over 7 expenses; only E4's 5.00 CHF
            // is left out, and the fondue is the largest expense, at 128.40 EUR, charged 128.40 EUR.
            let (converted, convertedRun) = try Self.report(ann, ["--in", "EUR"])
            #expect(convertedRun.stderr.hasSuffix(ConvertedViewFixture.note(1, into: "EUR")), "\(convertedRun)")
            #expect(converted.contains("<h2>EUR: 186.61 EUR <span class=\"meta\">(7 expenses)</span></h2>"), "\(converted)")
            #expect(converted.contains("<td><bdi>Zermatt</bdi></td><td class=\"number\">128.40 EUR</td><td class=\"number\">128.40 EUR</td></tr>"),
                    "\(converted)")
            #expect(converted.contains("<li>plus 5.00 CHF not converted: no CHF rate into EUR on or before 2026-02-10</li>\n</ul>"), "\(converted)")
            // The summary of the same range agrees.
            #expect(try ann.succeed(["summary", "--in", "EUR", "--from", "2026-01-01", "--to", "2026-02-28"],
                                    environment: ConvertedViewFixture.environment).hasPrefix("EUR  186.61  (7 expenses)"))
        }
    }
}
