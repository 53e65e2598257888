@testable import ExpenseCLI
import ExpenseClient
import ExpenseCore
import Testing

/// `expense rate import`'s reading of a file (``RateFile``), without a process: both layouts, what is skipped
/// and what refuses the whole file.
@Suite struct RateFileTests {
    static func text(_ rates: [ExchangeRate]) -> [String] { rates.map { "\($0.date) \($0.from.code) \($0.to.code) \($0.rate)" } }

    @Test("our layout, with or without its header, spaces trimmed; one line given twice with the same rate is one rate")
    func ours() throws {
        let expected = ["2026-12-01 EUR USD 1.05", "2026-12-01 USD JPY 157.2"]
        for header in ["", "date,from,to,rate\n", "Date, From, To, Rate\n"] {
            let file = try RateFile.parse(header + "2026-12-01, EUR, USD, 1.0500\n2026-12-01,USD,JPY,157.20\n2026-12-01,EUR,USD,1.05\n")
            #expect(Self.text(file.rates) == expected && file.warnings.isEmpty, "\(header)")
        }
        #expect(try RateFile.parse("").rates.isEmpty)
    }

    @Test("the ECB's daily and historical files: 1 EUR in each column's currency; N/A and empty cells skipped, unknown columns warned about")
    func centralBank() throws {
        let daily = try RateFile.parse("Date, USD, JPY, CYP, EUR, \n04 December 2026, 1.0534, 157.20, 0.58, 1, \n")
        #expect(Self.text(daily.rates) == ["2026-12-04 EUR USD 1.0534", "2026-12-04 EUR JPY 157.2"])
        #expect(daily.warnings.count == 2 && daily.warnings[0].contains("'CYP'") && daily.warnings[1].contains("'EUR'"), "\(daily.warnings)")
        let history = try RateFile.parse("Date,USD,JPY,\n2026-12-03,1.0512,N/A,\n2026-12-02,1.0499,,\n")
        #expect(Self.text(history.rates) == ["2026-12-03 EUR USD 1.0512", "2026-12-02 EUR USD 1.0499"])
    }

    @Test("the ECB's day as it writes it", arguments: [
        ("04 December 2026", "2026-12-04"), ("4 december 2026", "2026-12-04"), ("2026-12-04", "2026-12-04"),
        ("31 February 2026", nil), ("04 Dec 2026", nil), ("04 December 26", nil), ("December 04 2026", nil), ("", nil),
        ("+4 December 2026", nil),
    ])
    func centralBankDay(text: String, day: String?) {
        #expect(RateFile.centralBankDay(text)?.description == day)
    }

    @Test("a bad row refuses the whole file, each bad line named with its code")
    func refusals() {
        let cases: [(String, [String])] = [
            ("2026-12-01,EUR,USD,1.05\n2026-12-01,EUR,USD,1.06\n", ["line 2: duplicate_rate"]),
            ("2026-12-01,EUR,EUR,1\n2026-12-01,EUR,usd,1\n2026-13-01,EUR,USD,1\n", ["line 1: invalid_value", "line 2: invalid_currency",
                                                                                  "line 3: invalid_date"]),
            ("2026-12-01,EUR,USD\n2026-12-01,EUR,USD,1e3\n", ["line 1: invalid_row", "line 2: invalid_rate"]),
            ("Date,USD\nyesterday,1.05\n2026-12-02,0\n2026-12-03,1.1,2\n", ["line 2: invalid_date", "line 3: invalid_rate", "line 4: invalid_row"]),
        ]
        for (text, expected) in cases {
            let error = #expect(throws: ImportError.self) { try RateFile.parse(text) }
            guard case .invalidRows(let problems, let total)? = error else {
                Issue.record("\(String(describing: error))")
                continue
            }
            #expect(total == expected.count && problems.map { "line \($0.line): \($0.code)" } == expected, "\(problems)")
        }
        #expect(throws: ImportError.self) { try RateFile.parse("2026-12-01,\"EUR,USD,1\n") }
    }
}
