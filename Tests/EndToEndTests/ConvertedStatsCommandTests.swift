import TestSupport
import Foundation
import Testing

/// `expense stats --in CODE [--at then|end|DATE]` through the real binary, on ``ConvertedViewFixture``'s ledger:
/// one table in the target currency, figures computed by hand below.
@Suite struct ConvertedStatsCommandTests {
    static let range = ["stats", "--period", "month", "--from", "2026-01-01", "--to", "2026-02-28"]

    /// The row totals, total and average of the one table of `stats --json`, and its `in`, `at` and unconverted.
    static func figures(_ text: String) throws -> (rows: [Int], total: Int, average: Int, in: String?, at: String?, unconverted: [[String: Any]]) {
        let object = try ConvertedViewFixture.object(text)
        let tables = try #require(object["tables"] as? [[String: Any]])
        try #require(tables.count == 1, "one table: \(text)")
        let rows = try #require(tables[0]["rows"] as? [[String: Any]]).compactMap { $0["total"] as? Int }
        return (rows, try #require(tables[0]["total"] as? Int), try #require(tables[0]["average"] as? Int),
                object["in"] as? String, object["at"] as? String, try #require(object["unconverted"] as? [[String: Any]]))
    }

    @Test("stats --in EUR: each amount converted at its date (direct, reverse; never the later rate), CHF listed apart")
    func convertedThen() async throws {
        try await onOwnThread {
            let ann = try ConvertedViewFixture.ledger()
            let json = try ann.run(Self.range + ["--in", "EUR", "--json"])
            #expect(json.status == 0 && json.stderr == ConvertedViewFixture.note(1, into: "EUR"), "\(json)")
            // January: E1 1000 + E2 2000 × 0.92 = 1840 (the 0.90 of 2026-02-20 is later) → 2840.
            // February: E3 1234 JPY × 100 / 160 = 771.25 → 771; E5 333 × 0.92 = 306.36 → 306; E6 1200 × 0.92 = 1104;
            // E7 800 → 2981. Total 5821; average 5821 / 2 = 2910.5 → 2911 (halves away from zero).
            let then = try Self.figures(json.stdout)
            #expect(then.rows == [2840, 2981] && then.total == 5821 && then.average == 2911, "\(json.stdout)")
            #expect(then.in == "EUR" && then.at == "then")
            #expect(then.unconverted.count == 1)
            let chf = try #require(then.unconverted.first)
            #expect(chf["currency"] as? String == "CHF" && chf["amount"] as? Int == 500 && chf["count"] as? Int == 1
                    && chf["reason"] as? String == "no_rate" && chf["firstDay"] as? String == "2026-02-10"
                    && chf["lastDay"] as? String == "2026-02-10", "\(chf)")

            let text = try ann.run(Self.range + ["--in", "EUR"], environment: ConvertedViewFixture.environment)
            #expect(text.status == 0 && text.stderr == ConvertedViewFixture.note(1, into: "EUR"), "\(text)")
            #expect(text.stdout.hasPrefix("EUR  per month, 2026-01-01 to 2026-02-28  (6 expenses)\n"), "\(text)")
            #expect(!text.stdout.contains("USD") && !text.stdout.contains("JPY"), "one table, in EUR: \(text)")
            #expect(text.stdout.hasSuffix("plus 5.00 CHF not converted: no CHF rate into EUR on or before 2026-02-10\n"), "\(text)")
            for figure in ["28.40", "29.81", "58.21", "29.11"] { #expect(text.stdout.contains(figure), "\(figure): \(text)") }

            // CSV: the unconverted amount is not a row of the table; standard error still says so.
            let csv = try ann.run(Self.range + ["--in", "EUR", "--csv"])
            #expect(csv.status == 0 && csv.stderr == ConvertedViewFixture.note(1, into: "EUR"), "\(csv)")
            #expect(csv.stdout == "currency,period,start,end,partial,total,count\nEUR,2026-01,2026-01-01,2026-01-31,no,28.40,2\n"
                    + "EUR,2026-02,2026-02-01,2026-02-28,no,29.81,4\nEUR,total,2026-01-01,2026-02-28,,58.21,6\nEUR,average,,,,29.11,\n",
                    "\(csv)")
        }
    }

    @Test("stats --at end values each amount at its month's last day, --at DATE at one day: other figures")
    func convertedAtEndAndDate() async throws {
        try await onOwnThread {
            let ann = try ConvertedViewFixture.ledger()
            // --at end: January at 2026-01-31 (0.92): 2840 as at then. February at 2026-02-28 (0.90): E3 771,
            // E5 333 × 0.90 = 299.7 → 300, E6 1200 × 0.90 = 1080, E7 800 → 2951. Total 5791, average 2895.5 → 2896.
            let end = try Self.figures(try ann.succeed(Self.range + ["--in", "EUR", "--at", "end", "--json"]))
            #expect(end.rows == [2840, 2951] && end.total == 5791 && end.average == 2896 && end.at == "end", "\(end)")
            #expect(end.unconverted.first?["firstDay"] as? String == "2026-02-28", "CHF valued at its month's end")
            // --at 2026-03-01, everything at 0.90: January E1 1000 + E2 1800 = 2800; February 2951 as above.
            // Total 5751, average 2875.5 → 2876.
            let fixed = try Self.figures(try ann.succeed(Self.range + ["--in", "EUR", "--at", "2026-03-01", "--json"]))
            #expect(fixed.rows == [2800, 2951] && fixed.total == 5751 && fixed.average == 2876 && fixed.at == "2026-03-01", "\(fixed)")
            // --at 2025-12-31: before every rate, so only the EUR amounts are converted (E1 1000; E7 800), the rest
            // listed: USD 2000 + 333 + 1200 = 3533 (3 expenses), JPY 1234, CHF 500.
            let early = try ann.run(Self.range + ["--in", "EUR", "--at", "2025-12-31", "--json"])
            #expect(early.stderr == ConvertedViewFixture.note(5, into: "EUR"), "\(early)")
            let before = try Self.figures(early.stdout)
            #expect(before.rows == [1000, 800], "\(before)")
            #expect(before.unconverted.map { "\($0["currency"] ?? "") \($0["amount"] ?? "") \($0["count"] ?? "")" }
                    == ["CHF 500 1", "JPY 1234 1", "USD 3533 3"], "\(before.unconverted)")
        }
    }

    @Test("stats --in USD: JPY through EUR, EUR by the inverse of USD→EUR; --currency picks the source currency")
    func convertedIntoAnotherCurrency() async throws {
        try await onOwnThread {
            let ann = try ConvertedViewFixture.ledger()
            // January: E1 1000 / 0.92 = 1086.96 → 1087; E2 2000 → 3087. February: E3 1234 × 100 × 100 / (160 × 92)
            // = 838.32 → 838 (JPY → EUR → USD); E5 333; E6 1200; E7 800 / 0.92 = 869.57 → 870 → 3241.
            let usd = try Self.figures(try ann.succeed(Self.range + ["--in", "USD", "--json"]))
            #expect(usd.rows == [3087, 3241] && usd.total == 6328 && usd.in == "USD", "\(usd)")
            // --currency JPY: only E3, converted.
            let jpy = try ann.succeed(Self.range + ["--in", "USD", "--currency", "JPY", "--json"])
            let onlyJPY = try Self.figures(jpy)
            #expect(onlyJPY.rows == [0, 838] && onlyJPY.unconverted.isEmpty, "\(jpy)")
            #expect(try ConvertedViewFixture.object(jpy)["currency"] as? String == "JPY")
        }
    }

    @Test("stats: --at without --in is a usage error (64)")
    func refusals() async throws {
        try await onOwnThread {
            let ann = try ConvertedViewFixture.ledger()
            let at = try ann.run(Self.range + ["--at", "end"])
            #expect(at.status == 64 && at.stderr.hasPrefix("Error: --at values amounts for --in"), "\(at)")
            let bad = try ann.run(Self.range + ["--in", "EUR", "--at", "tomorrow"])
            #expect(bad.status == 64 || bad.status == 65, "\(bad)")
        }
    }
}
