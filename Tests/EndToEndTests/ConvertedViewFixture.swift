import Foundation
import Testing

/// The ledger the converted views' tests (`--in CODE [--at then|end|DATE]`) share: EUR is the ledger's currency,
/// with expenses in EUR, USD, JPY and CHF and rates for some pairs only:
/// - USD → EUR 0.92 from 2026-01-01 (direct), and 0.90 from 2026-02-20 (dated after every January and
///   early-February expense, so never used for them at `--at then`);
/// - EUR → JPY 160 from 2026-01-01 (JPY → EUR only in reverse; JPY → USD only through EUR);
/// - no CHF rate at all.
///
/// Expenses:
/// - E1 10.00 EUR food 2026-01-10
/// - E2 20.00 USD food 2026-01-15
/// - E3 1234 JPY travel 2026-02-05
/// - E4 5.00 CHF food 2026-02-10 (never converted)
/// - E5 3.33 USD travel 2026-02-12
/// - E6 12.00 USD food 2026-02-14
/// - E7 8.00 EUR food 2026-02-03
enum ConvertedViewFixture {
    /// Output of money and dates as the tests spell them.
    static let environment = ["LC_ALL": "C"]

    /// A new ledger holding the rates and expenses above.
    static func ledger() throws -> ExpenseProcess {
        let ann = try ExpenseProcess()
        try ann.succeed(["config", "set", "currency", "EUR"])
        try ann.succeed(["rate", "set", "2026-01-01", "USD", "EUR", "0.92"])
        try ann.succeed(["rate", "set", "2026-02-20", "USD", "EUR", "0.90"])
        try ann.succeed(["rate", "set", "2026-01-01", "EUR", "JPY", "160"])
        for arguments in [["10.00", "food", "--date", "2026-01-10"],
                          ["20.00", "food", "--currency", "USD", "--date", "2026-01-15"],
                          ["1234", "travel", "--currency", "JPY", "--date", "2026-02-05"],
                          ["5.00", "food", "--currency", "CHF", "--date", "2026-02-10"],
                          ["3.33", "travel", "--currency", "USD", "--date", "2026-02-12"],
                          ["12.00", "food", "--currency", "USD", "--date", "2026-02-14"],
                          ["8.00", "food", "--date", "2026-02-03"]] {
            try ann.succeed(["add"] + arguments)
        }
        return ann
    }

    /// The JSON object `text` holds.
    static func object(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw FixtureError.notAnObject(text)
        }
        return object
    }

    /// Why a fixture could not be read.
    enum FixtureError: Error {
        /// The text is not a JSON object.
        case notAnObject(String)
    }

    /// The note standard error gives when `count` amounts were left out of a view converted into `code`.
    static func note(_ count: Int, into code: String) -> String {
        "Note: \(count) amount\(count == 1 ? " was" : "s were") not converted into \(code) "
            + "and \(count == 1 ? "is" : "are") listed apart (`expense rate set` adds a rate).\n"
    }
}
