import TestSupport
import Foundation
import Testing

/// Money in tables and charts written the way the reader's locale writes it (`LC_ALL`, then
/// `expense config set locale`, then `LC_MONETARY`, then `LANG`), run as the real binary. The strings are what
/// Foundation (ICU's CLDR data) on this toolchain produces, pinned; the C/POSIX locale keeps the plain form,
/// and JSON, CSV and input never change with the locale.
@Suite struct ExpenseLocaleTests {
    /// No locale at all from the test runner's own environment: each test says what it sets.
    static let unset = ["LC_ALL": "", "LC_MONETARY": "", "LANG": ""]

    static func environment(_ values: [String: String]) -> [String: String] {
        unset.merging(values) { $1 }
    }

    /// One expense of `amount` in `currency`, shown under `locale`: the list's amount cell and the summary's
    /// total line. The largest amount, 2^53−1 minor units, is exact (never through `Double`).
    @Test(arguments: [
        ("de_DE.UTF-8", "EUR", "1234567.50", "1.234.567,50\u{A0}€"),
        ("en_IE.UTF-8", "EUR", "1234567.50", "€1,234,567.50"),
        ("en_IN", "EUR", "1234567.50", "€12,34,567.50"),
        ("ja_JP.UTF-8", "JPY", "1250", "¥1,250"),
        ("hi_IN.UTF-8", "INR", "1234567.50", "₹12,34,567.50"),
        ("fr_FR.UTF-8", "EUR", "1234567.50", "1\u{202F}234\u{202F}567,50\u{A0}€"),
        ("de_CH.UTF-8", "CHF", "1234567.50", "CHF\u{A0}1’234’567.50"),
        ("en_US.UTF-8", "BHD", "1.250", "BHD\u{A0}1.250"),
        // Arabic-Indic digits, Arabic separators (U+066C, U+066B) and a right-to-left mark in front.
        ("ar_EG.UTF-8", "EUR", "1234567.50", "\u{200F}١٬٢٣٤٬٥٦٧٫٥٠\u{A0}€"),
        // ICU rounds rials to whole units by default; the ledger's two ISO 4217 decimals are always shown.
        ("fa_IR.UTF-8", "IRR", "1234567.50", "\u{200E}ریال\u{A0}۱٬۲۳۴٬۵۶۷٫۵۰"),
        ("de_DE.UTF-8", "EUR", "90071992547409.91", "90.071.992.547.409,91\u{A0}€"),
        ("en_IN.UTF-8", "EUR", "90071992547409.91", "€9,00,71,99,25,47,409.91"),
        ("ja_JP.UTF-8", "JPY", "9007199254740991", "¥9,007,199,254,740,991"),
        ("ar_EG.UTF-8", "EUR", "90071992547409.91", "\u{200F}٩٠٬٠٧١٬٩٩٢٬٥٤٧٬٤٠٩٫٩١\u{A0}€"),
    ])
    func moneyIsWrittenTheLocalesWay(locale: String, currency: String, amount: String, shown: String) async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let environment = Self.environment(["LANG": locale])
            try expense.succeed(["add", amount, "food", "--currency", currency, "--date", "2026-03-01"])
            let list = try expense.succeed(["list"], environment: environment).split(separator: "\n").map(String.init)
            #expect(list.count == 2)
            #expect(list.last?.hasPrefix("2026-03-01  \(shown)  food") == true, "\(list.map { Array($0.unicodeScalars) })")
            #expect(!(list.first ?? "").contains("CUR"), "the amount carries its currency: no CUR column")
            let summary = try expense.succeed(["summary"], environment: environment)
            #expect(summary == "\(currency)  \(shown)  (1 expense)\n", "\(Array(summary.unicodeScalars))")
        }
    }

    /// A total above 2^53 minor units (two of the largest amounts) is still exact.
    @Test func totalsAboveTwoToThe53AreExact() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            try expense.succeed(["add", "90071992547409.91", "a", "--currency", "EUR"])
            try expense.succeed(["add", "90071992547409.91", "b", "--currency", "EUR"])
            let summary = try expense.succeed(["summary"], environment: Self.environment(["LC_ALL": "de_DE.UTF-8"]))
            #expect(summary == "EUR  180.143.985.094.819,82\u{A0}€  (2 expenses)\n")
        }
    }

    /// `LC_ALL` beats the configured locale, which beats `LC_MONETARY`, which beats `LANG`; an empty variable
    /// counts as unset; C, POSIX and a locale Foundation does not know keep the plain form.
    @Test(arguments: [
        (["LC_ALL": "de_DE.UTF-8", "LC_MONETARY": "en_IE.UTF-8", "LANG": "ja_JP.UTF-8"], "1.234.567,50\u{A0}€"),
        (["LC_MONETARY": "en_IE.UTF-8", "LANG": "de_DE.UTF-8"], "€1,234,567.50"),
        (["LANG": "de_DE.UTF-8"], "1.234.567,50\u{A0}€"),
        (["LANG": "de_DE"], "1.234.567,50\u{A0}€"),
        (["LANG": "de_DE.UTF-8@euro"], "1.234.567,50\u{A0}€"),
        ([:], "1234567.50  EUR"),
        (["LANG": "C.UTF-8"], "1234567.50  EUR"),
        (["LANG": "C"], "1234567.50  EUR"),
        (["LC_ALL": "POSIX", "LANG": "de_DE.UTF-8"], "1234567.50  EUR"),
        (["LC_ALL": "C", "LC_MONETARY": "de_DE.UTF-8"], "1234567.50  EUR"),
        (["LANG": "xx_YY.UTF-8"], "1234567.50  EUR"),
    ])
    func theLocaleComesFromTheEnvironment(values: [String: String], shown: String) async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            try expense.succeed(["add", "1234567.50", "food", "--currency", "EUR", "--date", "2026-03-01"])
            let list = try expense.succeed(["list"], environment: Self.environment(values))
            let line = list.split(separator: "\n").last.map(String.init) ?? ""
            #expect(line.hasPrefix("2026-03-01  \(shown)  food"), "\(values): \(list)")
        }
    }

    /// `expense config set locale` overrides `LC_MONETARY` and `LANG` (not `LC_ALL`, so `LC_ALL=C expense …` is
    /// always plain); `auto` goes back to the environment, and a locale Foundation does not know is refused.
    @Test func theConfiguredLocale() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            try expense.succeed(["add", "1234567.50", "food", "--currency", "EUR", "--date", "2026-03-01"])
            func amount(_ values: [String: String]) throws -> String {
                let line = try expense.succeed(["list"], environment: Self.environment(values)).split(separator: "\n").last ?? ""
                return String(line.dropFirst("2026-03-01  ".count).prefix { $0 != "f" })
            }
            #expect(try expense.succeed(["config", "get", "locale"]) == "auto\n")
            try expense.succeed(["config", "set", "locale", "de_DE"])
            #expect(try expense.succeed(["config", "get"]) == "currency USD\nlocale de_DE\n")
            #expect(try amount(["LANG": "en_IE.UTF-8", "LC_MONETARY": "ja_JP.UTF-8"]) == "1.234.567,50\u{A0}€  ")
            #expect(try amount(["LC_ALL": "C"]) == "1234567.50  EUR  ")
            try expense.succeed(["config", "set", "locale", "en-IN"])
            #expect(try expense.succeed(["config", "get", "locale"]) == "en_IN\n")
            #expect(try amount([:]) == "€12,34,567.50  ")
            try expense.succeed(["config", "set", "locale", "C"])
            #expect(try amount(["LANG": "de_DE.UTF-8"]) == "1234567.50  EUR  ")
            try expense.succeed(["config", "set", "locale", "auto"])
            #expect(try amount(["LANG": "en_IE.UTF-8"]) == "€1,234,567.50  ")

            // Messages for people use it too.
            try expense.succeed(["config", "set", "locale", "de_DE"])
            let id = try expense.succeed(["add", "12.50", "tea", "--currency", "EUR", "--date", "2026-03-02"])
            let deleted = try expense.run(["delete", String(id.prefix(8))], environment: Self.unset)
            #expect(deleted.stderr == "Deleted 2026-03-02 12,50\u{A0}€ tea.\n", "\(deleted)")
            try expense.succeed(["config", "set", "locale", "auto"])

            let unknown = try expense.run(["config", "set", "locale", "xx_YY"])
            #expect(unknown.status == 65 && unknown.stderr.hasPrefix("Error: invalid_locale: "), "\(unknown)")
            #expect(try expense.succeed(["config", "get", "locale"]) == "auto\n")
        }
    }

    /// Whatever the locale, what scripts read stays plain: JSON in minor units, CSV with plain decimals, and
    /// input strictly `12.50` (a German `12,50` is still refused).
    @Test func scriptsAndInputIgnoreTheLocale() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let german = Self.environment(["LC_ALL": "de_DE.UTF-8"])
            let id = try expense.succeed(["add", "1234567.50", "food", "--currency", "EUR", "--date", "2026-03-01"],
                                         environment: german).trimmingCharacters(in: .newlines)
            let comma = try expense.run(["add", "12,50", "food"], environment: german)
            #expect(comma.status == 65 && comma.stderr.contains("invalid_amount"), "\(comma)")
            #expect(try expense.succeed(["list", "--json"], environment: german).contains(#""amount" : 123456750"#))
            #expect(try expense.succeed(["summary", "--json"], environment: german).contains(#""amount" : 123456750"#))
            #expect(try expense.succeed(["export"], environment: german)
                    == "id,date,amount,currency,category,note,paid_by,split,charged,tags,parts,source\n\(id),2026-03-01,1234567.50,EUR,food,,,,,,,\n")
        }
    }

    /// Wider, locale-written amounts still line up in terminal columns: right-aligned in the list, in the
    /// summary's groups, and with the zero-width right-to-left mark of Arabic.
    @Test func columnsStayAlignedWithLocaleAmounts() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            try expense.succeed(["add", "1234567.50", "food", "--currency", "EUR", "--date", "2026-03-01", "--note", "lunch"])
            try expense.succeed(["add", "5", "食べ物", "--currency", "EUR", "--date", "2026-03-02", "--note", "x"])
            let german = Self.environment(["LANG": "de_DE.UTF-8"])
            let lines = try expense.succeed(["list"], environment: german).split(separator: "\n").map(String.init)
            #expect(lines.first == "DATE                AMOUNT  CATEGORY  NOTE   ID")
            #expect(lines.dropFirst().map { String($0.dropLast(8)) } == [
                "2026-03-01  1.234.567,50\u{A0}€  food      lunch  ",
                "2026-03-02          5,00\u{A0}€  食べ物    x      ",
            ])
            #expect(try expense.succeed(["summary", "--by", "category"], environment: german) == """
                EUR  1.234.572,50\u{A0}€  (2 expenses)
                  food    1.234.567,50\u{A0}€  100.0%
                  食べ物          5,00\u{A0}€    0.0%

                """)
            // With the chart, every bar and amount still ends in the same column.
            let charted = try expense.succeed(["summary", "--by", "category"],
                                              environment: german.merging(["EXPENSE_CHART": "always"]) { $1 })
            let groupLines = charted.split(separator: "\n").dropFirst()
            let columns = groupLines.map { $0.unicodeScalars.reduce(0) { $0 + ((0x3040...0x9FFF).contains($1.value) ? 2 : 1) } }
            #expect(columns.count == 2 && Set(columns).count == 1, "\(charted)")
            #expect(groupLines.first?.contains("█") == true)
            let arabic = Self.environment(["LANG": "ar_EG.UTF-8"])
            let rows = try expense.succeed(["list"], environment: arabic).split(separator: "\n").map(String.init)
            #expect(rows.dropFirst().map { String($0.dropLast(8)) } == [
                "2026-03-01  \u{200F}١٬٢٣٤٬٥٦٧٫٥٠\u{A0}€  food      lunch  ",
                "2026-03-02          \u{200F}٥٫٠٠\u{A0}€  食べ物    x      ",
            ])
        }
    }
}
