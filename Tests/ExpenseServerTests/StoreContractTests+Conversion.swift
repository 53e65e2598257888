import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// A converted `summary` (Protocol.md §5.4, `in` and `at`) against every store: each store's one read of an
/// expense range and the rates (``LedgerStore/records(_:)``) is what paging through every change gives, and the
/// daemon's converted totals are the core's ``CurrencyConverter`` over those records, as a client computes them.
@Suite(.offTheCooperativePool) struct StoreConversionContractTests {
    @Test("the range and the rates read as one state; converted totals are the core's over the pulled records; at then, end and a day",
          arguments: LedgerStoreKind.allCases)
    func convertedSummaryIsTheCoresOverTheSameRecords(kind: LedgerStoreKind) throws {
        let euro = try #require(Currency(code: "EUR"))
        let ledger = try TestLedger(kind, currency: euro)
        let engine = ledger.engine
        var client = EngineClient(engine)
        let dropped = UUID(), edited = UUID()
        #expect(try client.put(UUID(), base: 0, fields(amount: 1_000, currency: "EUR", category: "food", date: "2026-03-05")).isApplied)
        #expect(try client.put(edited, base: 0, fields(amount: 500, currency: "USD", category: "food", date: "2026-02-01")).isApplied)
        #expect(try client.put(edited, base: 1, fields(amount: 700)).isApplied)
        #expect(try client.put(UUID(), base: 0, fields(amount: 1_000, currency: "JPY", category: "travel", date: "2026-03-06")).isApplied)
        #expect(try client.put(UUID(), base: 0, fields(amount: 12_000, currency: "CHF", category: "food", date: "2026-03-04")).isApplied)
        #expect(try client.put(dropped, base: 0, fields(amount: 99, currency: "USD", category: "food", date: "2026-03-01")).isApplied)
        #expect(try client.delete(dropped, base: 1).isApplied)
        #expect(try client.put(UUID(), base: 0, fields(amount: 300, currency: "USD", category: "food", date: "2025-12-31")).isApplied)
        for (date, from, to, text) in [("2026-01-01", "USD", "EUR", "0.92"), ("2026-03-01", "EUR", "JPY", "160.5"),
                                       ("2026-04-01", "EUR", "JPY", "150")] {
            let (id, values) = try rateRecord(date, from, to, text)
            #expect(try client.push { kindItem($0, .rate, id, base: 0, values) }.isApplied)
        }

        let from = try #require(CalendarDay("2026-01-01"))
        let read = try engine.store.records(.converting(from: from, to: nil))
        #expect(read.expenses.count == 4 && read.expenses.allSatisfy { $0.date >= from })
        #expect(read.rates.count == 3 && read.head == engine.store.head)

        for valuation in [Valuation.then, .periodEnd, .on(try #require(CalendarDay("2026-05-01")))] {
            for grouping in SummaryGrouping.allCases {
                let query = SummaryQuery(from: from, groupBy: grouping)
                let conversion = ViewConversion(target: euro, valuation: valuation)
                let answer = try engine.summary(query, conversion: conversion)
                // The client's computation over the same live records.
                var converter = CurrencyConverter(table: RateTable(read.rates, ledgerCurrency: euro), conversion)
                var aggregator = Aggregator(query: query)
                for expense in read.expenses {
                    let end = grouping == .month ? expense.date.monthEnd : CalendarDay.today()
                    if let converted = converter.convert(expense, periodEnd: end) { try aggregator.add(converted) }
                }
                #expect(answer == SummaryResult(summary: aggregator.summary, cursor: engine.store.head, conversion: conversion,
                                                unconverted: converter.unconverted), "\(valuation) \(grouping)")
            }
        }
        // At then: 10.00 EUR + 7.00 USD × 0.92 (6.44) + 1000 JPY / 160.5 (6.23) = 22.67; 120.00 CHF has no rate.
        let then = try engine.summary(SummaryQuery(from: from), conversion: ViewConversion(target: euro))
        #expect(then.summary.totals == [CurrencyTotal(currency: euro, amount: 2_267, count: 3)])
        #expect(then.unconverted.map { "\($0.currency.code) \($0.amount ?? -1) \($0.reason.rawValue)" } == ["CHF 12000 no_rate"])
    }

    @Test("the answer with in and at travels whole: written, read back, equal")
    func resultCoding() throws {
        let euro = try #require(Currency(code: "EUR")), franc = try #require(Currency(code: "CHF"))
        let day = try #require(CalendarDay("2026-03-04"))
        let result = SummaryResult(summary: Summary(totals: [CurrencyTotal(currency: euro, amount: 2_267, count: 3)], groups: []),
                                   cursor: 9, conversion: ViewConversion(target: euro, valuation: .on(day)),
                                   unconverted: [UnconvertedTotal(currency: franc, reason: .noRate, amount: 12_000, count: 1,
                                                                  firstDay: day, lastDay: day),
                                                 UnconvertedTotal(currency: franc, reason: .overflow, amount: nil, count: 2,
                                                                  firstDay: day, lastDay: day)])
        var writer = JSONWriter()
        result.write(to: &writer)
        let parsed = try JSONParser.parse(writer.bytes)
        #expect(try SummaryResult(json: parsed) == result)
        let request = SummaryRequest(query: SummaryQuery(groupBy: .month), conversion: ViewConversion(target: euro, valuation: .periodEnd))
        var params = JSONWriter()
        request.writeParams(to: &params)
        #expect(try SummaryRequest(params: try JSONParser.parse(params.bytes)) == request)
        #expect(throws: RPCError.self) { try SummaryRequest(params: .object(["at": .string("end")])) }
        #expect(throws: RPCError.self) { try SummaryRequest(params: .object(["in": .string("XXY")])) }
    }
}

/// A rate's id and its fields as a mutation sends them (the converted-view contract tests' rates).
func rateRecord(_ date: String, _ from: String, _ to: String, _ text: String) throws -> (UUID, [String: JSONValue]) {
    let rate = ExchangeRate(date: try #require(CalendarDay(date)), from: try #require(Currency(code: from)),
                            to: try #require(Currency(code: to)), rate: try Rate(text))
    return (rate.id, rate.fields.mapValues { value in
        guard case .text(let text) = value else { return .null }
        return .string(text)
    })
}
