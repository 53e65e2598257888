import TestSupport
import Foundation
import Testing

/// `expense budget status --in CODE [--at then|end|DATE]` through the real binary: every expense of a budget's
/// category counts, whatever its currency, converted, against the budget's limit converted.
@Suite struct ConvertedBudgetCommandTests {
    /// ``ConvertedViewFixture``'s ledger with monthly budgets from 2026-01-01: food 50.00 EUR, food 30.00 USD and
    /// travel 100.00 CHF (no CHF rate: never shown converted).
    static func budgeted() throws -> ExpenseProcess {
        let ann = try ConvertedViewFixture.ledger()
        try ann.succeed(["budget", "set", "food", "50.00", "--start", "2026-01-01"])
        try ann.succeed(["budget", "set", "food", "30.00", "--currency", "USD", "--start", "2026-01-01"])
        try ann.succeed(["budget", "set", "travel", "100.00", "--currency", "CHF", "--start", "2026-01-01"])
        return ann
    }

    static let status = ["budget", "status", "--on", "2026-02-15", "--in", "EUR"]

    /// `category budgetCurrency: budgeted spent left` of each budget in a converted `budget status --json`, and the
    /// object itself.
    static func budgets(_ text: String) throws -> ([String], [String: Any]) {
        let object = try ConvertedViewFixture.object(text)
        let budgets = try #require(object["budgets"] as? [[String: Any]])
        return (budgets.map { budget in
            "\(budget["category"] ?? "") \(budget["budgetCurrency"] ?? ""): \(budget["budgeted"] ?? "") \(budget["spent"] ?? "") "
                + "\(budget["left"] ?? "") \(budget["currency"] ?? "")"
        }, object)
    }

    /// Standard error of a converted status that left out E4 and the travel budget.
    static let notes = ConvertedViewFixture.note(1, into: "EUR")
        + "Note: 1 budget's limit was not converted into EUR and is not shown (`expense rate set` adds a rate).\n"

    @Test("budget status --in EUR: each food budget counts every food expense, converted, against its limit converted at the period's end")
    func convertedThen() async throws {
        try await onOwnThread {
            let ann = try Self.budgeted()
            let json = try ann.run(Self.status + ["--json"])
            #expect(json.status == 0 && json.stderr == Self.notes, "\(json)")
            // February's food: E7 800 EUR; E6 1200 USD × 0.92 (its date, 2026-02-14) = 1104; E4 5.00 CHF has no rate.
            // Spent 1904 for both food budgets. The EUR one: 5000 − 1904 = 3096 left. The USD one: its 30.00 valued
            // at the period's end, 2026-02-28 (0.90), 3000 × 0.90 = 2700; 2700 − 1904 = 796 left.
            let (then, object) = try Self.budgets(json.stdout)
            #expect(then == ["food EUR: 5000 1904 3096 EUR", "food USD: 2700 1904 796 EUR"], "\(json.stdout)")
            #expect(object["in"] as? String == "EUR" && object["at"] as? String == "then")
            // E4 falls in both food budgets and is counted once.
            let unconverted = try #require(object["unconverted"] as? [[String: Any]])
            #expect(unconverted.count == 1 && unconverted.first?["currency"] as? String == "CHF"
                    && unconverted.first?["count"] as? Int == 1, "\(unconverted)")
            let budgets = try #require(object["unconvertedBudgets"] as? [[String: Any]])
            #expect(budgets.count == 1 && budgets.first?["category"] as? String == "travel"
                    && budgets.first?["currency"] as? String == "CHF" && budgets.first?["day"] as? String == "2026-02-28", "\(budgets)")

            let text = try ann.run(Self.status, environment: ConvertedViewFixture.environment)
            #expect(text.status == 0 && text.stderr == Self.notes, "\(text)")
            #expect(text.stdout == """
                food  EUR (a EUR budget)  2026-02-01 to 2026-02-28  budgeted 50.00, spent 19.04, left 30.96
                food  EUR (a USD budget)  2026-02-01 to 2026-02-28  budgeted 27.00, spent 19.04, left 7.96
                plus 5.00 CHF not converted: no CHF rate into EUR on or before 2026-02-10
                the 'travel' budget in CHF is not shown: no CHF rate into EUR on or before 2026-02-28

                """, "\(text)")
            // Without --in a budget counts only its own currency: the EUR one spent E7's 8.00 alone.
            let plain = try #require(JSONSerialization.jsonObject(with: Data(try ann.succeed(["budget", "status", "--on", "2026-02-15", "--json"]).utf8))
                                     as? [[String: Any]])
            #expect(plain.first { $0["currency"] as? String == "EUR" }?["spent"] as? Int == 800, "\(plain)")
        }
    }

    @Test("budget status --at end and --at DATE value the expenses (and --at DATE the limit) on other days: other figures")
    func convertedAtEndAndDate() async throws {
        try await onOwnThread {
            let ann = try Self.budgeted()
            // --at end, 2026-02-28 (0.90): E6 1200 × 0.90 = 1080, E7 800 → spent 1880. EUR: 5000 − 1880 = 3120 left;
            // USD: 2700 − 1880 = 820 left.
            let (end, endObject) = try Self.budgets(try ann.succeed(Self.status + ["--at", "end", "--json"]))
            #expect(end == ["food EUR: 5000 1880 3120 EUR", "food USD: 2700 1880 820 EUR"], "\(end)")
            #expect(endObject["at"] as? String == "end")
            // --at 2026-01-31 (0.92 for everything): E6 1104 + E7 800 = 1904 spent; the USD limit 3000 × 0.92 = 2760,
            // 2760 − 1904 = 856 left; the EUR one 3096 left.
            let (fixed, fixedObject) = try Self.budgets(try ann.succeed(Self.status + ["--at", "2026-01-31", "--json"]))
            #expect(fixed == ["food EUR: 5000 1904 3096 EUR", "food USD: 2760 1904 856 EUR"], "\(fixed)")
            let budgets = try #require(fixedObject["unconvertedBudgets"] as? [[String: Any]])
            #expect(budgets.first?["day"] as? String == "2026-01-31", "\(budgets)")
            let at = try ann.run(["budget", "status", "--at", "end"])
            #expect(at.status == 64 && at.stderr.hasPrefix("Error: --at values amounts for --in"), "\(at)")
        }
    }
}
