import ExpenseCore
import Testing
import TestSupport

@Suite struct RateTests {
    @Test("a rate parses exactly into mantissa and scale, and prints canonically", arguments: [
        ("1.0834", Int64(10_834), 4, "1.0834"),
        ("0.000123", 123, 6, "0.000123"),
        ("25000", 25_000, 0, "25000"),
        ("157.2", 1572, 1, "157.2"),
        ("1.50", 15, 1, "1.5"),
        ("0100", 100, 0, "100"),
        ("100.000", 100, 0, "100"),
        ("000.5000", 5, 1, "0.5"),
        ("0.000000000000001", 1, 15, "0.000000000000001"),
        ("999999999999", 999_999_999_999, 0, "999999999999"),
        ("99999999999.9", 999_999_999_999, 1, "99999999999.9"),
        ("0.000999999999999", 999_999_999_999, 15, "0.000999999999999"),
        ("1.000000000000000", 1, 0, "1"),
    ])
    func parses(text: String, mantissa: Int64, scale: Int, canonical: String) throws {
        let rate = try Rate(text)
        #expect(rate.mantissa == mantissa && rate.scale == scale, "\(text)")
        #expect(rate.description == canonical)
        #expect(try Rate(canonical) == rate)
    }

    @Test("zero, negatives, exponents, more than 12 significant digits, more than 15 decimals and 10^12 are refused", arguments: [
        ("", RateError.empty),
        ("0", .zero),
        ("0.000", .zero),
        ("-1.5", .negative("-1.5")),
        ("1e3", .exponent("1e3")),
        ("1.5E-3", .exponent("1.5E-3")),
        ("+1.5", .notDecimal("+1.5")),
        (" 1.5", .notDecimal(" 1.5")),
        ("1,5", .notDecimal("1,5")),
        ("1.", .notDecimal("1.")),
        (".5", .notDecimal(".5")),
        ("1.2.3", .notDecimal("1.2.3")),
        ("abc", .notDecimal("abc")),
        ("1.0000000000001", .tooManySignificantDigits("1.0000000000001")),
        ("123456789012.5", .tooManySignificantDigits("123456789012.5")),
        ("0.0000000000000001", .tooManyDecimals("0.0000000000000001")),
        ("1.0000000000000000", .tooManyDecimals("1.0000000000000000")),
        ("1000000000000", .tooLarge("1000000000000")),
        ("1000000000000.0", .tooLarge("1000000000000.0")),
    ])
    func refuses(text: String, error: RateError) {
        #expect(throws: error) { try Rate(text) }
        #expect(error.code == "invalid_rate")
        #expect(!error.message.isEmpty)
    }

    @Test("equal values are equal and hash alike whatever their spelling")
    func equality() throws {
        let spellings = ["1.5", "1.50", "01.5", "1.500000", "001.500"]
        let rates = try spellings.map { try Rate($0) }
        #expect(Set(rates).count == 1)
        #expect(try Rate("1.5") != Rate("1.05"))
        #expect(try Rate("15") != Rate("1.5"))
        #expect(try Rate(mantissa: 1500, scale: 3) == Rate("1.5"))
    }

    @Test("the mantissa-and-scale initializer normalizes and refuses what the text parser refuses")
    func mantissaAndScale() throws {
        let rate = try Rate(mantissa: 250_000, scale: 2)
        #expect(rate.mantissa == 2500 && rate.scale == 0 && rate.description == "2500")
        #expect(throws: RateError.zero) { try Rate(mantissa: 0, scale: 0) }
        #expect(throws: RateError.self) { try Rate(mantissa: -5, scale: 0) }
        #expect(throws: RateError.self) { try Rate(mantissa: 5, scale: 16) }
        #expect(throws: RateError.self) { try Rate(mantissa: 5, scale: -1) }
        #expect(throws: RateError.self) { try Rate(mantissa: 1_000_000_000_000, scale: 0) }
        #expect(throws: RateError.self) { try Rate(mantissa: 1_000_000_000_001, scale: 1) }
        #expect(try Rate(mantissa: 10_000_000_000_000, scale: 2).description == "100000000000")
    }

    @Test("the canonical text parses back to the same rate for every mantissa and scale drawn")
    func roundTrip() throws {
        var generator = SeededGenerator(seed: 33)
        for _ in 0..<2000 {
            let mantissa = Int64.random(in: 1..<Rate.mantissaLimit, using: &generator)
            let scale = Int.random(in: 0...Rate.maximumScale, using: &generator)
            let rate = try Rate(mantissa: mantissa, scale: scale)
            #expect(try Rate(rate.description) == rate, "\(mantissa)e-\(scale)")
        }
    }
}
