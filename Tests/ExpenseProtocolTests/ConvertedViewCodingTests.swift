import ExpenseCore
import Foundation
import Testing
@testable import ExpenseProtocol

/// `stats` and `balances` converted into one currency (`in`, `at`, `unconverted`; Protocol.md §5.10 and §5.11):
/// the exact JSON of params and result as the documents' transcripts show it, decoded back to the same values.
@Suite struct ConvertedViewCodingTests {
    static let documentedStats = #"{"at":"then","byCategory":false,"cursor":3,"from":"2026-10-01","in":"EUR","period":"month","periods":[{"current":false,"end":"2026-10-31","label":"2026-10","partial":false,"start":"2026-10-01"},{"current":true,"end":"2026-11-30","label":"2026-11","partial":false,"start":"2026-11-01"}],"tables":[{"average":575,"categories":[],"columnAverages":[],"columnTotals":[],"count":1,"currency":"EUR","rows":[{"amounts":[],"count":0,"total":0},{"amounts":[],"count":1,"total":1150}],"total":1150}],"to":"2026-11-30","today":"2026-11-30","unconverted":[{"amount":500,"count":1,"currency":"CHF","firstDay":"2026-10-15","lastDay":"2026-10-15","reason":"no_rate"}]}"#

    static let documentedBalances = #"{"at":"then","balances":[{"currency":"EUR","member":"3f2504e0-4f89-41d3-9a0c-0305e82c3301","net":420,"paid":2760,"share":2340},"#
        + #"{"currency":"EUR","member":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","net":-420,"paid":1460,"share":1880}],"cursor":9,"in":"EUR","#
        + #""unconverted":[{"amount":2000,"count":1,"currency":"GBP","firstDay":"2026-11-20","lastDay":"2026-11-20","reason":"no_rate"}]}"#

    private static func day(_ text: String) throws -> CalendarDay { try #require(CalendarDay(text)) }

    private static func currency(_ code: String) throws -> Currency { try #require(Currency(code: code)) }

    /// Protocol.md's ledger: 1 USD = 0.92 EUR from 2026-11-01, no CHF rate.
    private static func table() throws -> RateTable {
        RateTable([ExchangeRate(date: try day("2026-11-01"), from: .usd, to: try currency("EUR"), rate: try Rate("0.92"))],
                  ledgerCurrency: try currency("EUR"))
    }

    private static func document() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("Protocol.md"), encoding: .utf8)
    }

    @Test("stats in EUR: the documented answer is the core's figures over the documented records, and reads back")
    func statsRoundTrips() throws {
        let query = try StatisticsQuery(period: .month, from: Self.day("2026-10-01"), to: Self.day("2026-11-30"), byCategory: false,
                                        today: Self.day("2026-11-30"))
        let conversion = ViewConversion(target: try Self.currency("EUR"), valuation: .then)
        var builder = ConvertedStatisticsBuilder(query: query, converter: CurrencyConverter(table: try Self.table(), conversion))
        // 12.50 USD on 2026-11-30 × 0.92 = 11.50 EUR; 5.00 CHF on 2026-10-15 has no rate.
        try builder.add(try ExpenseValidator.validate(ExpenseDraft(id: UUID().uuidString, amount: 1250, currency: "USD", category: "food",
                                                                   date: "2026-11-30", note: "")))
        try builder.add(try ExpenseValidator.validate(ExpenseDraft(id: UUID().uuidString, amount: 500, currency: "CHF", category: "food",
                                                                   date: "2026-10-15", note: "")))
        let result = StatsResult(statistics: try builder.build(), cursor: 3, conversion: conversion, unconverted: builder.converter.unconverted)
        try checkResult(result, json: Self.documentedStats)
        #expect(try Self.document().contains(#""id":24,"result":"# + Self.documentedStats + "}"))
        let request = StatsRequest(query: query, conversion: conversion)
        try checkParams(request, json: #"{"at":"then","byCategory":false,"from":"2026-10-01","in":"EUR","period":"month","to":"2026-11-30","today":"2026-11-30"}"#)
        #expect(try Self.document().contains(#""id":24,"method":"stats","params":"# + String(decoding: request.paramsBytes, as: UTF8.self)))
        // Without in: no at, in or unconverted, as before.
        try checkResult(StatsResult(statistics: result.statistics, cursor: 3), json: Self.documentedStats
            .replacingOccurrences(of: #""at":"then","#, with: "").replacingOccurrences(of: #""in":"EUR","#, with: "")
            .replacingOccurrences(of: #","unconverted":[{"amount":500,"count":1,"currency":"CHF","firstDay":"2026-10-15","lastDay":"2026-10-15","reason":"no_rate"}]"#, with: ""))
    }

    @Test("balances in EUR: the documented answer reads back to the same rows, currency and unconverted entries")
    func balancesRoundTrips() throws {
        let ann = BalancesCodingTests.ann, bob = BalancesCodingTests.bob, eur = try Self.currency("EUR")
        // 30.00 USD → 27.60 EUR shared equally; 10.00 EUR shared equally; 5.00 USD → 4.60 EUR from bob to ann.
        let balances = try Balances([
            BalanceEntry(payer: ann, currency: eur, amount: 2760, shares: [.init(member: ann, amount: 1380), .init(member: bob, amount: 1380)]),
            BalanceEntry(payer: bob, currency: eur, amount: 1000, shares: [.init(member: ann, amount: 500), .init(member: bob, amount: 500)]),
            .transfer(from: bob, to: ann, amount: 460, currency: eur),
        ])
        let conversion = ViewConversion(target: eur, valuation: .then)
        let left = UnconvertedTotal(currency: try Self.currency("GBP"), reason: .noRate, amount: 2000, count: 1,
                                    firstDay: try Self.day("2026-11-20"), lastDay: try Self.day("2026-11-20"))
        try checkResult(BalancesResult(balances, currency: nil, cursor: 9, conversion: conversion, unconverted: [left]),
                        json: Self.documentedBalances)
        #expect(try Self.document().contains(#""id":25,"result":"# + Self.documentedBalances + "}"))
        let request = BalancesRequest(conversion: conversion, today: try Self.day("2026-11-30"))
        try checkParams(request, json: #"{"at":"then","in":"EUR","today":"2026-11-30"}"#)
        #expect(try Self.document().contains(#""id":25,"method":"balances","params":{"at":"then","in":"EUR","today":"2026-11-30"}}"#))
        try checkParams(BalancesRequest(currency: .usd, conversion: ViewConversion(target: eur, valuation: .on(try Self.day("2026-02-01")))),
                        json: #"{"at":"2026-02-01","currency":"USD","in":"EUR"}"#)
        // An absent at is then; null members are absent.
        #expect(try BalancesRequest(params: ["in": "EUR", "at": .null]) == BalancesRequest(conversion: conversion))
        #expect(try BalancesRequest(params: ["in": .null, "today": .null]) == BalancesRequest())
        // An unconverted entry whose sum does not fit in 64 bits is written and read as null.
        let huge = UnconvertedTotal(currency: .usd, reason: .overflow, amount: nil, count: 2, firstDay: try Self.day("2026-01-01"),
                                    lastDay: try Self.day("2026-01-02"))
        try checkResult(BalancesResult(balances: [], cursor: 1, conversion: ViewConversion(target: eur, valuation: .periodEnd), unconverted: [huge]),
                        json: #"{"at":"end","balances":[],"cursor":1,"in":"EUR","unconverted":[{"amount":null,"count":2,"currency":"USD","firstDay":"2026-01-01","lastDay":"2026-01-02","reason":"overflow"}]}"#)
    }

    @Test("in, at and today are checked, naming the member; at without in names at",
          arguments: [(#"{"in":"eur"}"#, "in"), (#"{"in":5}"#, "in"), (#"{"in":"EUR","at":"tomorrow"}"#, "at"), (#"{"at":"end"}"#, "at"),
                      (#"{"in":"EUR","today":"2026-02-30"}"#, "today")])
    func paramsErrors(json: String, field: String) {
        for error in [paramsError(BalancesRequest.self, json), paramsError(StatsRequest.self, json)] {
            #expect(error?.code == RPCError.invalidParamsCode && error?.reason == "invalid_params" && error?.field == field,
                    "\(json): \(String(describing: error))")
        }
    }

    @Test("a converted result without its unconverted list, or with an unknown reason, is refused")
    func refusedResults() throws {
        for json in [#"{"at":"then","balances":[],"cursor":1,"in":"EUR"}"#,
                     #"{"balances":[],"cursor":1,"in":"EUR","unconverted":[]}"#,
                     #"{"at":"then","balances":[],"cursor":1,"in":"EUR","unconverted":[{"amount":1,"count":1,"currency":"USD","firstDay":"2026-01-01","lastDay":"2026-01-01","reason":"later"}]}"#] {
            #expect(throws: ProtocolDecodingError.self, "\(json)") { try BalancesResult(json: try JSONParser.parse(Array(json.utf8))) }
        }
    }
}
