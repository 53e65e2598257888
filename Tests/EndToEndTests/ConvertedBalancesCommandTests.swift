import TestSupport
import Foundation
import Testing

/// `expense balances --in CODE [--at then|end|DATE]` through the real binary: each shared expense's amount and
/// each transfer converted once, then divided by the expense's own split, so the nets add up to exactly zero.
@Suite struct ConvertedBalancesCommandTests {
    /// ``ConvertedViewFixture``'s ledger (its expenses are nobody's shared ones) with members alice (me), bob and
    /// carol, these shared expenses and one transfer:
    /// - S1 99.00 USD paid by alice, split alice, bob, carol (2026-01-15)
    /// - S2 1000 JPY paid by bob, split alice=2, bob=1 (2026-02-05)
    /// - S3 30.00 CHF paid by carol, split all (2026-02-10): no rate, never converted
    /// - S4 10.00 USD paid by carol, exact alice=3.00, bob=7.00 (2026-01-20)
    /// - S5 60.00 EUR paid by bob, split alice, carol (2026-01-10)
    /// - T bob paid alice back 20.00 USD (2026-02-25)
    static func household() throws -> ExpenseProcess {
        let ann = try ConvertedViewFixture.ledger()
        for name in ["alice", "bob", "carol"] { try ann.succeed(["member", "add", name]) }
        try ann.succeed(["config", "set", "me", "alice"])
        try ann.succeed(["add", "99.00", "dinner", "--currency", "USD", "--split", "alice,bob,carol", "--date", "2026-01-15"])
        try ann.succeed(["add", "1000", "train", "--currency", "JPY", "--paid-by", "bob", "--split", "alice=2,bob=1", "--date", "2026-02-05"])
        try ann.succeed(["add", "30.00", "fondue", "--currency", "CHF", "--paid-by", "carol", "--split", "alice,bob,carol", "--date", "2026-02-10"])
        try ann.succeed(["add", "10.00", "tea", "--currency", "USD", "--paid-by", "carol", "--split", "alice=3.00,bob=7.00", "--date", "2026-01-20"])
        try ann.succeed(["add", "60.00", "rent", "--paid-by", "bob", "--split", "alice,carol", "--date", "2026-01-10"])
        try ann.succeed(["settle", "record", "bob", "alice", "20.00", "--currency", "USD", "--date", "2026-02-25"])
        return ann
    }

    /// Each member's `paid share net` in the converted `balances --json`, and the object's `in`, `at`, `unconverted`.
    static func nets(_ text: String) throws -> (rows: [String: String], in: String?, at: String?, unconverted: [[String: Any]]) {
        let object = try ConvertedViewFixture.object(text)
        let balances = try #require(object["balances"] as? [[String: Any]])
        var rows: [String: String] = [:]
        // The point of dividing each converted amount by its split: the nets still add up to exactly zero.
        #expect(balances.compactMap { $0["net"] as? Int }.reduce(0, +) == 0, "\(text)")
        for row in balances {
            let name = try #require(row["name"] as? String)
            #expect(row["currency"] as? String == object["in"] as? String, "one currency: \(row)")
            rows[name] = "\(row["paid"] ?? "") \(row["share"] ?? "") \(row["net"] ?? "")"
        }
        return (rows, object["in"] as? String, object["at"] as? String, try #require(object["unconverted"] as? [[String: Any]]))
    }

    @Test("balances --in EUR: amounts converted once and divided by their splits, nets summing to zero; CHF left out and listed")
    func convertedThen() async throws {
        try await onOwnThread {
            let ann = try Self.household()
            let json = try ann.run(["balances", "--in", "EUR", "--json"])
            #expect(json.status == 0 && json.stderr == ConvertedViewFixture.note(1, into: "EUR"), "\(json)")
            // At then: S1 9900 × 0.92 = 9108 → 3036 each. S2 1000 × 100 / 160 = 625 → alice 416.67, bob 208.33:
            // floors 416 + 208, the unit left to the larger remainder (alice) → 417, 208. S4 1000 × 0.92 = 920,
            // divided 300 : 700 → 276, 644. S5 6000 → 3000 each. T 2000 × 0.90 (2026-02-20, before the 25th) = 1800.
            // alice paid 9108 + 1800 received as a share: share 3036 + 417 + 276 + 3000 + 1800 = 8529, net +579.
            // bob paid 625 + 6000 + 1800 = 8425, share 3036 + 208 + 644 = 3888, net +4537.
            // carol paid 920, share 3036 + 3000 = 6036, net −5116. 579 + 4537 − 5116 = 0.
            let then = try Self.nets(json.stdout)
            #expect(then.rows == ["alice": "9108 8529 579", "bob": "8425 3888 4537", "carol": "920 6036 -5116"], "\(json.stdout)")
            #expect(then.in == "EUR" && then.at == "then")
            #expect(then.unconverted.count == 1 && then.unconverted.first?["currency"] as? String == "CHF"
                    && then.unconverted.first?["amount"] as? Int == 3000 && then.unconverted.first?["count"] as? Int == 1,
                    "\(then.unconverted)")

            let text = try ann.run(["balances", "--in", "EUR"], environment: ConvertedViewFixture.environment)
            #expect(text.status == 0 && text.stderr == ConvertedViewFixture.note(1, into: "EUR"), "\(text)")
            // Rows in member-id order (random ids), so compared as a set; the listing comes last.
            let lines = text.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "MEMBER                CUR         PAID        SHARE          NET", "\(text)")
            #expect(Set(lines.dropFirst().dropLast()) == ["alice                 EUR        91.08        85.29         5.79",
                                                          "bob                   EUR        84.25        38.88        45.37",
                                                          "carol                 EUR         9.20        60.36       -51.16"], "\(text)")
            #expect(lines.last == "plus 30.00 CHF not converted: no CHF rate into EUR on or before 2026-02-10", "\(text)")
            // Without --in, nothing changes: one array, per currency.
            let plain = try #require(JSONSerialization.jsonObject(with: Data(try ann.succeed(["balances", "--json"]).utf8)) as? [[String: Any]])
            #expect(Set(plain.compactMap { $0["currency"] as? String }) == ["CHF", "EUR", "JPY", "USD"])
        }
    }

    @Test("balances --at DATE and --at end value every record on one day: other figures, nets still summing to zero")
    func convertedAtDateAndEnd() async throws {
        try await onOwnThread {
            let ann = try Self.household()
            // --at 2026-01-31 (0.92 for every USD amount): T 2000 × 0.92 = 1840 instead of 1800, the rest as at then.
            // alice: paid 9108, share 3036 + 417 + 276 + 3000 + 1840 = 8569, net +539; bob: paid 625 + 6000 + 1840
            // = 8465, share 3888, net +4577; carol: paid 920, share 6036, net −5116. 539 + 4577 − 5116 = 0.
            let january = try Self.nets(try ann.succeed(["balances", "--in", "EUR", "--at", "2026-01-31", "--json"]))
            #expect(january.rows == ["alice": "9108 8569 539", "bob": "8465 3888 4577", "carol": "920 6036 -5116"], "\(january)")
            #expect(january.at == "2026-01-31" && january.unconverted.first?["firstDay"] as? String == "2026-01-31")
            // --at end: today (EXPENSE_NOW 2026-12-05), so every USD amount at 0.90: S1 9900 × 0.90 = 8910 → 2970
            // each; S4 900 → 270, 630; S2, S5 and T (1800) as at then. alice: paid 8910, share 2970 + 417 + 270
            // + 3000 + 1800 = 8457, net +453; bob: paid 8425, share 2970 + 208 + 630 = 3808, net +4617; carol:
            // paid 900, share 2970 + 3000 = 5970, net −5070. 453 + 4617 − 5070 = 0.
            let end = try Self.nets(try ann.succeed(["balances", "--in", "EUR", "--at", "end", "--json"],
                                                    environment: ["EXPENSE_NOW": "1796472000"]))
            #expect(end.rows == ["alice": "8910 8457 453", "bob": "8425 3808 4617", "carol": "900 5970 -5070"], "\(end)")
            #expect(end.at == "end" && end.unconverted.first?["firstDay"] as? String == "2026-12-05", "\(end.unconverted)")
            // --currency USD: only S1, S4 and T, converted.
            // alice: paid 9108, share 3036 + 276 + 1800 = 5112, net +3996; bob: paid 1800, share 3036 + 644 = 3680,
            // net −1880; carol: paid 920, share 3036, net −2116. 3996 − 1880 − 2116 = 0.
            let usd = try Self.nets(try ann.succeed(["balances", "--in", "EUR", "--currency", "USD", "--json"]))
            #expect(usd.rows == ["alice": "9108 5112 3996", "bob": "1800 3680 -1880", "carol": "920 3036 -2116"], "\(usd)")
            #expect(usd.unconverted.isEmpty)
        }
    }

    @Test("settle --in EUR settles the converted balances in one currency; what has no rate is listed")
    func settleConverted() async throws {
        try await onOwnThread {
            let ann = try Self.household()
            // The nets at then (see convertedThen): alice +579, bob +4537, carol −5116. Carol owes most and pays the
            // largest creditor, bob, 45.37, then alice 5.79.
            let text = try ann.run(["settle", "--in", "EUR"], environment: ConvertedViewFixture.environment)
            #expect(text.status == 0 && text.stderr == ConvertedViewFixture.note(1, into: "EUR"), "\(text)")
            #expect(text.stdout == "carol pays bob 45.37 EUR\ncarol pays alice 5.79 EUR\n"
                    + "plus 30.00 CHF not converted: no CHF rate into EUR on or before 2026-02-10\n", "\(text)")
            let object = try ConvertedViewFixture.object(try ann.succeed(["settle", "--in", "EUR", "--at", "2026-01-31", "--json"]))
            let transfers = try #require(object["transfers"] as? [[String: Any]])
            // At 2026-01-31: alice +539, bob +4577, carol −5116.
            #expect(transfers.map { "\($0["from"] ?? "") \($0["to"] ?? "") \($0["amount"] ?? "") \($0["currency"] ?? "")" }
                    == ["carol bob 4577 EUR", "carol alice 539 EUR"], "\(object)")
            #expect(object["in"] as? String == "EUR" && object["at"] as? String == "2026-01-31"
                    && (object["unconverted"] as? [[String: Any]])?.count == 1)
        }
    }
}
