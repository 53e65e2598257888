import ExpenseCore
import Testing

@Suite struct ConversionTests {
    static let gbp = TestCurrency.named("GBP"), chf = TestCurrency.named("CHF"), kwd = TestCurrency.named("KWD")
    static let usd = TestCurrency.usd, eur = TestCurrency.eur, jpy = TestCurrency.jpy, bhd = TestCurrency.bhd

    static func day(_ text: String) throws -> CalendarDay { try #require(CalendarDay(text)) }

    static func rate(_ date: String, _ from: Currency, _ to: Currency, _ value: String) throws -> ExchangeRate {
        ExchangeRate(date: try day(date), from: from, to: to, rate: try Rate(value))
    }

    /// The steps of the path found, as (record date, from, to, inverted).
    static func steps(_ table: RateTable, _ date: String, _ from: Currency, _ to: Currency) throws -> [String]? {
        try table.path(on: day(date), from: from, to: to)?.steps.map {
            "\($0.rate.date) \($0.rate.from.code)>\($0.rate.to.code)" + ($0.inverted ? " inverted" : "")
        }
    }

    @Test("the latest direct rate on or before the day is used; a rate of the same day is; one dated after never is")
    func directRateByDate() throws {
        let table = RateTable([try Self.rate("2026-12-05", Self.usd, Self.eur, "0.95"), try Self.rate("2026-12-01", Self.usd, Self.eur, "0.9")],
                              ledgerCurrency: Self.eur)
        #expect(try Self.steps(table, "2026-12-04", Self.usd, Self.eur) == ["2026-12-01 USD>EUR"])
        #expect(try Self.steps(table, "2026-12-05", Self.usd, Self.eur) == ["2026-12-05 USD>EUR"])
        #expect(try Self.steps(table, "2027-06-01", Self.usd, Self.eur) == ["2026-12-05 USD>EUR"])
        #expect(try Self.steps(table, "2026-11-30", Self.usd, Self.eur) == nil)
        #expect(table.convert(10_000, Self.usd, on: try Self.day("2026-12-04"), into: Self.eur)
                == .converted(9000, try #require(table.path(on: Self.day("2026-12-04"), from: Self.usd, to: Self.eur))))
        #expect(table.convert(10_000, Self.usd, on: try Self.day("2026-11-30"), into: Self.eur) == .noRate)
    }

    @Test("without a direct rate the reverse pair's is used inverted; a direct rate wins over a newer reverse one")
    func inverseRate() throws {
        let inverse = RateTable([try Self.rate("2026-12-01", Self.eur, Self.usd, "1.25")], ledgerCurrency: Self.eur)
        #expect(try Self.steps(inverse, "2026-12-04", Self.usd, Self.eur) == ["2026-12-01 EUR>USD inverted"])
        guard case .converted(let amount, let path) = inverse.convert(1000, Self.usd, on: try Self.day("2026-12-04"), into: Self.eur) else {
            Issue.record("no conversion")
            return
        }
        #expect(amount == 800)
        #expect(path.description == "1 EUR = 1.25 USD on 2026-12-01, inverted")
        let both = RateTable([try Self.rate("2026-12-01", Self.usd, Self.eur, "0.9"), try Self.rate("2026-12-03", Self.eur, Self.usd, "1.25")],
                             ledgerCurrency: Self.eur)
        #expect(try Self.steps(both, "2026-12-04", Self.usd, Self.eur) == ["2026-12-01 USD>EUR"])
        #expect(try Self.steps(both, "2026-12-02", Self.eur, Self.usd) == ["2026-12-01 USD>EUR inverted"])
        #expect(try Self.steps(both, "2026-12-03", Self.eur, Self.usd) == ["2026-12-03 EUR>USD"])
    }

    @Test("without a rate between the two, the path goes through the ledger's currency, each leg direct or inverted")
    func throughTheLedgerCurrency() throws {
        let table = RateTable([try Self.rate("2026-12-01", Self.gbp, Self.eur, "1.2"), try Self.rate("2026-12-02", Self.jpy, Self.eur, "0.00625"),
                               try Self.rate("2026-12-10", Self.eur, Self.jpy, "150")],
                              ledgerCurrency: Self.eur)
        #expect(try Self.steps(table, "2026-12-04", Self.gbp, Self.jpy) == ["2026-12-01 GBP>EUR", "2026-12-02 JPY>EUR inverted"])
        #expect(try Self.steps(table, "2026-12-10", Self.gbp, Self.jpy) == ["2026-12-01 GBP>EUR", "2026-12-10 EUR>JPY"])
        #expect(try Self.steps(table, "2026-12-04", Self.jpy, Self.gbp) == ["2026-12-02 JPY>EUR", "2026-12-01 GBP>EUR inverted"])
        // 10.00 GBP = 12.00 EUR = 1920 JPY (12 / 0.00625).
        #expect(table.convert(1000, Self.gbp, on: try Self.day("2026-12-04"), into: Self.jpy)
                == .converted(1920, try #require(table.path(on: Self.day("2026-12-04"), from: Self.gbp, to: Self.jpy))))
        // A leg dated after the day is never used: on 2026-12-01 there is no JPY leg yet.
        #expect(try Self.steps(table, "2026-12-01", Self.gbp, Self.jpy) == nil)
    }

    @Test("never a longer chain, and no rate at all is noRate")
    func noRate() throws {
        let table = RateTable([try Self.rate("2026-12-01", Self.usd, Self.gbp, "0.8"), try Self.rate("2026-12-01", Self.gbp, Self.chf, "1.1")],
                              ledgerCurrency: Self.eur)
        #expect(try Self.steps(table, "2026-12-04", Self.usd, Self.chf) == nil)
        #expect(table.convert(100, Self.usd, on: try Self.day("2026-12-04"), into: Self.chf) == .noRate)
        #expect(RateTable([], ledgerCurrency: Self.eur).convert(100, Self.usd, on: try Self.day("2026-12-04"), into: Self.eur) == .noRate)
        // The ledger's currency itself has no third currency to go through.
        let viaGBP = RateTable([try Self.rate("2026-12-01", Self.usd, Self.gbp, "0.8"), try Self.rate("2026-12-01", Self.gbp, Self.chf, "1.1")],
                               ledgerCurrency: Self.gbp)
        #expect(try Self.steps(viaGBP, "2026-12-04", Self.usd, Self.chf) == ["2026-12-01 USD>GBP", "2026-12-01 GBP>CHF"])
        #expect(try Self.steps(viaGBP, "2026-12-04", Self.gbp, Self.eur) == nil)
    }

    @Test("a currency into itself is the identity: no rate looked up, the amount as it is")
    func identity() throws {
        let table = RateTable([], ledgerCurrency: Self.eur)
        let path = try #require(table.path(on: Self.day("2026-12-04"), from: Self.jpy, to: Self.jpy))
        #expect(path.isIdentity && path.description == "identity")
        #expect(table.convert(-1234, Self.jpy, on: try Self.day("2026-12-04"), into: Self.jpy) == .converted(-1234, path))
        #expect(Conversion.convert(ExpenseRules.maximumAmount, along: path) == ExpenseRules.maximumAmount)
        #expect(Conversion.convert(Int64.min, along: path) == nil)
    }

    @Test("ties round half to even, both signs, direct and inverted", arguments: [
        (Int64(1), Int64(0)), (3, 2), (5, 2), (7, 4), (2, 1), (0, 0), (-1, 0), (-3, -2), (-5, -2), (-7, -4),
    ])
    func halfToEven(amount: Int64, expected: Int64) throws {
        let half = RateTable([try Self.rate("2026-12-01", Self.usd, Self.eur, "0.5")], ledgerCurrency: Self.eur)
        let path = try #require(half.path(on: Self.day("2026-12-04"), from: Self.usd, to: Self.eur))
        #expect(Conversion.convert(amount, along: path) == expected)
        let twice = RateTable([try Self.rate("2026-12-01", Self.eur, Self.usd, "2")], ledgerCurrency: Self.eur)
        let inverted = try #require(twice.path(on: Self.day("2026-12-04"), from: Self.usd, to: Self.eur))
        #expect(inverted.steps.first?.inverted == true)
        #expect(Conversion.convert(amount, along: inverted) == expected)
    }

    @Test("minor units of 0, 2 and 3 digits: JPY, USD, KWD and BHD", arguments: [
        ("USD", "JPY", "157.2", Int64(1050), Int64(1651)),   // 10.50 USD = 1650.6 JPY
        ("JPY", "USD", "0.0067", 1000, 670),                 // 1000 JPY = 6.70 USD
        ("USD", "KWD", "0.307", 10_000, 30_700),             // 100.00 USD = 30.700 KWD
        ("KWD", "USD", "3.2573", 1, 0),                      // 0.001 KWD = 0.0032573 USD
        ("KWD", "USD", "3.2573", 2, 1),                      // 0.002 KWD = 0.0065146 USD
        ("BHD", "JPY", "400.5", 1000, 400),                  // 1.000 BHD = 400.5 JPY: the even neighbour
        ("BHD", "JPY", "401.5", 1000, 402),
        ("JPY", "BHD", "0.0025", 1001, 2502),                // 1001 JPY = 2.5025 BHD: 2502.5 fils
        ("JPY", "BHD", "0.0025", 1003, 2508),                // 2507.5 fils
    ])
    func exponents(from: String, to: String, rate: String, amount: Int64, expected: Int64) throws {
        let source = TestCurrency.named(from), target = TestCurrency.named(to)
        let table = RateTable([try Self.rate("2026-12-01", source, target, rate)], ledgerCurrency: Self.eur)
        let path = try #require(table.path(on: Self.day("2026-12-01"), from: source, to: target))
        #expect(Conversion.convert(amount, along: path) == expected)
        #expect(Conversion.convert(-amount, along: path) == -expected)
    }

    @Test("a result above the largest amount is overflow, reported and never wrapped or trapped")
    func overflow() throws {
        let table = RateTable([try Self.rate("2026-12-01", Self.usd, Self.jpy, "157.2"), try Self.rate("2026-12-01", Self.bhd, Self.eur, "999999999999"),
                               try Self.rate("2026-12-01", Self.jpy, Self.eur, "0.000000000000001")],
                              ledgerCurrency: Self.eur)
        let day = try Self.day("2026-12-01")
        let path = try #require(table.path(on: day, from: Self.usd, to: Self.jpy))
        #expect(table.convert(ExpenseRules.maximumAmount, Self.usd, on: day, into: Self.jpy) == .overflow(path))
        #expect(table.convert(-ExpenseRules.maximumAmount, Self.usd, on: day, into: Self.jpy) == .overflow(path))
        // 57,295,779,578,884.14 USD is 9,006,896,549,800,586.8 JPY: just inside.
        #expect(Conversion.convert(5_729_577_957_888_414, along: path) == 9_006_896_549_800_587)
        for amount in [Int64.max, Int64.min, Int64.min + 1] {
            #expect(Conversion.convert(amount, along: path) == nil)
        }
        // The largest factors: a 12-digit rate, and an inverse of 10^15, through the ledger's currency.
        let widest = try #require(table.path(on: day, from: Self.bhd, to: Self.jpy))
        #expect(widest.steps.count == 2 && widest.steps[1].inverted)
        #expect(Conversion.convert(Int64.max, along: widest) == nil)
        #expect(Conversion.convert(1, along: widest) == nil)
        #expect(Conversion.convert(0, along: widest) == 0)
        let tiny = try #require(table.path(on: day, from: Self.jpy, to: Self.eur))
        #expect(Conversion.convert(ExpenseRules.maximumAmount, along: tiny) == 901)   // 9007199254740991e-15 EUR = 9.007… EUR
    }
}
