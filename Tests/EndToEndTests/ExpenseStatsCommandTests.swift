import ExpenseCore
import Foundation
import Testing
import TestSupport

/// `expense stats` and `expense report` as a person runs them: tables per currency, JSON, CSV, usage errors,
/// and the report carrying the numbers of `summary` and `stats`.
@Suite struct ExpenseStatsCommandTests {
    static let plain = ["LC_ALL": "C"]

    private func ledger() throws -> ExpenseProcess {
        let process = try ExpenseProcess()
        try process.succeed(["add", "12.50", "food", "--date", "2026-01-05"])
        try process.succeed(["add", "800", "rent", "--date", "2026-01-01"])
        try process.succeed(["add", "7.25", "food", "--date", "2026-03-31"])
        try process.succeed(["add", "1500", "food", "--currency", "JPY", "--date", "2026-02-14"])
        try process.succeed(["add", "30", "<script>x</script> & \"q\"", "--date", "2026-03-01", "--note", "\u{202E}evil"])
        return process
    }

    @Test func jsonHasATablePerCurrencyWithZeroPeriods() async throws {
        try await onOwnThread {
            let process = try ledger()
            let text = try process.succeed(["stats", "--from", "2026-01-01", "--to", "2026-04-30", "--by", "category", "--json"])
            let body = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let tables = try #require(body["tables"] as? [[String: Any]])
            #expect(tables.compactMap { $0["currency"] as? String } == ["JPY", "USD"])
            let usd = tables[1]
            #expect(usd["categories"] as? [String] == ["<script>x</script> & \"q\"", "food", "rent"])
            #expect((usd["rows"] as? [[String: Any]])?.compactMap { $0["total"] as? Int } == [81250, 0, 3725, 0])
            #expect(usd["total"] as? Int == 84975)
            #expect(usd["average"] as? Int == 21244)
            #expect(usd["columnTotals"] as? [Int] == [3000, 1975, 80000])
            #expect((body["periods"] as? [[String: Any]])?.compactMap { $0["label"] as? String } == ["2026-01", "2026-02", "2026-03", "2026-04"])
        }
    }

    @Test func tableCSVAndErrors() async throws {
        try await onOwnThread {
            let process = try ledger()
            let table = try process.succeed(["stats", "--period", "quarter", "--from", "2026-01-01", "--to", "2026-06-30",
                                             "--currency", "USD"], environment: Self.plain)
            #expect(table.contains("USD  per quarter, 2026-01-01 to 2026-06-30  (4 expenses)"))
            #expect(table.contains("2026-Q1"))
            #expect(!table.contains("JPY"))
            #expect(table.contains("average"))
            let csv = try process.succeed(["stats", "--period", "week", "--from", "2025-12-29", "--to", "2026-01-11", "--csv"])
            #expect(csv == """
                currency,period,start,end,partial,total,count
                USD,2026-W01,2025-12-29,2026-01-04,no,800.00,1
                USD,2026-W02,2026-01-05,2026-01-11,no,12.50,1
                USD,total,2025-12-29,2026-01-11,,812.50,2
                USD,average,,,,406.25,

                """)
            let backwards = try process.run(["stats", "--from", "2026-02-01", "--to", "2026-01-01"])
            #expect(backwards.status == 64 && backwards.stderr.contains("empty"), "\(backwards)")
            let tooMany = try process.run(["stats", "--period", "week", "--from", "1990-01-01", "--to", "2026-01-01"])
            #expect(tooMany.status == 64 && tooMany.stderr.contains("1000"), "\(tooMany)")
            let badPeriod = try process.run(["stats", "--period", "day"])
            #expect(badPeriod.status == 64, "\(badPeriod)")
            let both = try process.run(["stats", "--json", "--csv"])
            #expect(both.status == 64, "\(both)")
        }
    }

    @Test func reportHasTheNumbersOfSummaryAndStatsAndIsPrivate() async throws {
        try await onOwnThread {
            let process = try ledger()
            let output = process.directory + "/report.html"
            try process.succeed(["report", "--output", output, "--from", "2026-01-01", "--to", "2026-12-31"], environment: Self.plain)
            let attributes = try FileManager.default.attributesOfItem(atPath: output)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            let html = try String(contentsOfFile: output, encoding: .utf8)
            #expect(!html.contains("<script>"))
            #expect(html.contains("&lt;script&gt;x&lt;/script&gt; &amp; &quot;q&quot;"))
            #expect(html.contains("⟨U+202E⟩evil"))
            #expect(!html.contains("\u{202E}"))
            #expect(html.contains("prefers-color-scheme: dark") && html.contains("@media print"))
            #expect(html.contains("default-src 'none'"))
            // Every category total of `summary --by category` and every month of `stats` is in the report's tables.
            let summaryText = try process.succeed(["summary", "--by", "category", "--from", "2026-01-01", "--to", "2026-12-31", "--json"])
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(summaryText.utf8)) as? [String: Any])
            let groups = try #require(summary["groups"] as? [[String: Any]])
            #expect(groups.count == 4)
            for group in groups {
                let currency = try #require(Currency(code: group["currency"] as? String ?? ""))
                let amount = Money.format(Int64(group["amount"] as? Int ?? -1), currency: currency, includeCode: true)
                let key = (group["key"] as? String ?? "")
                    .replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                    .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
                #expect(html.contains("<tr><td><bdi>\(key)</bdi></td><td class=\"number\">\(amount)</td>"), "\(key) \(amount)")
            }
            let statsText = try process.succeed(["stats", "--from", "2026-01-01", "--to", "2026-12-31", "--json"])
            let stats = try #require(try JSONSerialization.jsonObject(with: Data(statsText.utf8)) as? [String: Any])
            let labels = (stats["periods"] as? [[String: Any]] ?? []).compactMap { $0["label"] as? String }
            let tables = try #require(stats["tables"] as? [[String: Any]])
            #expect(tables.count == 2 && labels.count == 12)
            for table in tables {
                let currency = try #require(Currency(code: table["currency"] as? String ?? ""))
                for (label, row) in zip(labels, table["rows"] as? [[String: Any]] ?? []) {
                    let amount = Money.format(Int64(row["total"] as? Int ?? -1), currency: currency, includeCode: true)
                    #expect(html.contains("<tr><td>\(label)</td><td class=\"number\">\(amount)</td>")
                            || html.contains("<tr><td>\(label)*</td><td class=\"number\">\(amount)</td>"), "\(label) \(amount)")
                }
            }
            let missing = try process.run(["report"])
            #expect(missing.status == 64, "\(missing)")
        }
    }

    /// The report's budget part has the figures of `expense budget status` for the period containing its last day,
    /// and is absent while the ledger has no budget.
    @Test func reportShowsBudgetAgainstActualWithTheFiguresOfBudgetStatus() async throws {
        try await onOwnThread {
            let process = try ledger()
            let output = process.directory + "/report.html"
            let range = ["report", "--output", output, "--from", "2026-01-01", "--to", "2026-03-31"]
            try process.succeed(range, environment: Self.plain)
            #expect(!(try String(contentsOfFile: output, encoding: .utf8)).contains("Budget against actual"))
            try process.succeed(["budget", "set", "food", "10", "--start", "2026-01-01"], environment: Self.plain)
            try process.succeed(range, environment: Self.plain)
            let html = try String(contentsOfFile: output, encoding: .utf8)
            #expect(html.contains("Budget against actual"))
            let text = try process.succeed(["budget", "status", "--on", "2026-03-31", "--json"], environment: Self.plain)
            let body = try JSONSerialization.jsonObject(with: Data(text.utf8))
            let statuses = try #require((body as? [[String: Any]]) ?? ((body as? [String: Any])?["budgets"] as? [[String: Any]]))
            #expect(statuses.count == 1)
            let status = statuses[0]
            let figures = try ["budgeted", "carried", "spent", "left"].map { key -> String in
                let minor = try #require(status[key] as? Int, "\(key) in \(status)")
                return "<td class=\"number\">\(Money.format(Int64(minor), currency: .usd, includeCode: true))</td>"
            }
            #expect(figures[2].contains("7.25") && figures[3].contains("2.75"), "\(figures)")
            #expect(html.contains("<tr><td><bdi>food</bdi></td><td class=\"number\">2026-03-01 to 2026-03-31</td>"
                                  + figures.joined() + "</tr>"), "\(figures)")
        }
    }
}
