import ExpenseCore
import Testing
import TestSupport

@Suite("Money.parse and Money.format")
struct MoneyTests {
    // MARK: parse, accepted

    @Test("accepted amounts, per currency exponent", arguments: [
        ("12.5", "USD", 1250 as Int64), ("12.50", "USD", 1250), ("12", "USD", 1200),
        ("0.1", "USD", 10), ("0.2", "USD", 20), ("0.30", "USD", 30), ("0.01", "USD", 1),
        ("0012.50", "USD", 1250), // leading zeros are harmless: the value is still exact
        ("1250", "JPY", 1250), ("1", "JPY", 1),
        ("1.250", "BHD", 1250), ("1.25", "BHD", 1250), ("0.001", "BHD", 1),
        ("1.250", "KWD", 1250), ("1.250", "JOD", 1250), ("1.250", "OMR", 1250), ("1.250", "TND", 1250),
        ("1.0001", "UYW", 10001),
    ])
    func accepted(text: String, code: String, minorUnits: Int64) throws {
        #expect(try Money.parse(text, currency: TestCurrency.named(code)) == minorUnits)
    }

    @Test("0.1 + 0.2 in minor units is exactly parse(\"0.30\")")
    func pointOnePlusPointTwo() throws {
        let sum = try Money.parse("0.1", currency: .usd) + Money.parse("0.2", currency: .usd)
        #expect(sum == (try Money.parse("0.30", currency: .usd)))
        #expect(Money.format(sum, currency: .usd) == "0.30")
    }

    // MARK: parse, refused

    /// `.5` is refused on purpose: the grammar requires a whole part (`0.5`), so a stray leading point from a
    /// typo (`.50` meant as `50`) is caught instead of silently meaning fifty cents. `5.` is refused likewise.
    @Test("refused with invalid_amount", arguments: [
        "12.505", "-3", "0", "0.00", "000", "1e3", "12,50", "abc", " 12", "12 ", "1 2", "+5", ".5", "5.", "",
        ".", "1.2.3", "1_000", "0x10", "١٢", "１２", "12\u{0}", "12\n", "٫5", "1,000.00", "$12", "12USD",
    ])
    func refusedUSD(text: String) {
        expectValidationError("invalid_amount", field: .amount) { try Money.parse(text, currency: .usd) }
    }

    @Test("more decimals than the currency has are refused", arguments: [
        ("12.5", "JPY"), ("12.0", "JPY"), ("1.2505", "BHD"), ("1.2505", "KWD"), ("1.0000", "JOD"),
        ("1.2505", "OMR"), ("1.2505", "TND"), ("1.00001", "UYW"), ("12.505", "EUR"),
    ])
    func tooManyDecimals(text: String, code: String) {
        expectValidationError("invalid_amount") { try Money.parse(text, currency: TestCurrency.named(code)) }
    }

    // MARK: the 2^53 boundary

    @Test("2^53−1 minor units is the largest amount; 2^53 is refused")
    func largestAmount() throws {
        #expect(ExpenseRules.maximumAmount == 9_007_199_254_740_991)
        #expect(ExpenseRules.maximumAmount == (1 << 53) - 1)
        #expect(try Money.parse("9007199254740991", currency: TestCurrency.jpy) == 9_007_199_254_740_991)
        #expect(try Money.parse("90071992547409.91", currency: .usd) == 9_007_199_254_740_991)
        #expect(try Money.parse("9007199254740.991", currency: TestCurrency.bhd) == 9_007_199_254_740_991)
        expectValidationError("invalid_amount") { try Money.parse("9007199254740992", currency: TestCurrency.jpy) }
        expectValidationError("invalid_amount") { try Money.parse("90071992547409.92", currency: .usd) }
        expectValidationError("invalid_amount") { try Money.parse("9007199254740991", currency: .usd) }
    }

    @Test("numbers far beyond Int64 are refused without trapping", arguments: [
        "123456789012345678901234567890", "9223372036854775807", "9223372036854775808",
        "18446744073709551616", "99999999999999999999.99",
        String(repeating: "9", count: 1_000),
    ])
    func huge(text: String) {
        for code in ["USD", "JPY", "BHD"] {
            expectValidationError("invalid_amount") { try Money.parse(text, currency: TestCurrency.named(code)) }
        }
    }

    @Test("checkRange accepts 1 … 2^53−1 only", arguments: [
        (Int64.min, false), (-1, false), (0, false), (1, true), (9_007_199_254_740_991, true),
        (9_007_199_254_740_992, false), (Int64.max, false),
    ])
    func checkRange(value: Int64, valid: Bool) {
        if valid {
            #expect(throws: Never.self) { try Money.checkRange(value) }
        } else {
            expectValidationError("invalid_amount") { try Money.checkRange(value) }
        }
    }

    // MARK: format

    @Test("format prints the exact value", arguments: [
        (1250 as Int64, "USD", "12.50"), (5, "USD", "0.05"), (1, "USD", "0.01"), (0, "USD", "0.00"),
        (100, "USD", "1.00"), (-5, "USD", "-0.05"), (-1250, "USD", "-12.50"),
        (1250, "JPY", "1250"), (0, "JPY", "0"), (-7, "JPY", "-7"),
        (1, "BHD", "0.001"), (1250, "BHD", "1.250"), (10001, "UYW", "1.0001"),
        (Int64.max, "USD", "92233720368547758.07"), (Int64.min, "USD", "-92233720368547758.08"),
        (Int64.max, "JPY", "9223372036854775807"), (Int64.min, "JPY", "-9223372036854775808"),
        (Int64.min, "BHD", "-9223372036854775.808"),
    ])
    func format(minorUnits: Int64, code: String, expected: String) {
        let currency = TestCurrency.named(code)
        #expect(Money.format(minorUnits, currency: currency) == expected)
        #expect(Money.format(minorUnits, currency: currency, includeCode: true) == expected + " " + code)
    }

    @Test("format(1250, USD) with the code is 12.50 USD")
    func formatWithCode() {
        #expect(Money.format(1250, currency: .usd, includeCode: true) == "12.50 USD")
        #expect(Money.format(1250, currency: .usd) == "12.50")
    }

    @Test("parse(format(x)) == x for a seeded random sample in every currency")
    func roundTrip() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        for currency in Currency.all {
            var samples: [Int64] = [1, 9, 10, 99, 100, 101, ExpenseRules.maximumAmount, ExpenseRules.maximumAmount - 1]
            for _ in 0..<40 { samples.append(Int64.random(in: 1...ExpenseRules.maximumAmount, using: &generator)) }
            for _ in 0..<20 { samples.append(Int64.random(in: 1...100_000, using: &generator)) }
            for value in samples {
                let text = Money.format(value, currency: currency)
                #expect(try Money.parse(text, currency: currency) == value, "\(currency.code) \(text)")
            }
        }
    }
}

@Suite("Money.parse error messages")
struct MoneyMessageTests {
    /// The message is printed to a terminal by the CLI and sent over the wire: it must not carry the raw
    /// input's control characters (an escape sequence would restyle or rewrite the user's terminal) and must
    /// stay short whatever was typed.
    @Test("messages never echo control characters and stay short", arguments: [
        "12\u{1B}[2J", "\u{7}-3", "-\u{1B}]0;pwned\u{7}", "1.2\u{0}", String(repeating: "9", count: 5_000),
        String(repeating: "9", count: 5_000) + "x", "1." + String(repeating: "5", count: 5_000),
    ])
    func safeMessages(text: String) throws {
        let error = #expect(throws: ValidationError.self) { try Money.parse(text, currency: .usd) }
        let message = try #require(error).message
        #expect(!message.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(message.debugDescription)")
        #expect(message.count < 200, "\(message.count) characters")
    }
}
