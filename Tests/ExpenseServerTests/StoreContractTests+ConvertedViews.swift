import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// Converted `stats` and `balances` (Protocol.md §5.10, §5.11, `in` and `at`) against every store: each answer is
/// the core's function (``ExpenseCore/ConvertedStatisticsBuilder``, ``ExpenseCore/Balances``) over the records and
/// rates the store reads in one state (``LedgerStore/records(_:)``), as a client computes them over its copy.
@Suite(.offTheCooperativePool) struct StoreConvertedViewsContractTests {
    private static func shared(_ amount: Int64, _ currency: String, date: String, payer: UUID, split: SplitSpec) -> [String: JSONValue] {
        var values = fields(amount: amount, currency: currency, category: "food", date: date)
        values["paidBy"] = .string(UUIDText.lowercased(payer))
        values["split"] = .string(split.text)
        return values
    }

    /// A EUR ledger: ann and bob; rates USD→EUR 0.92 (2026-01-01) and EUR→JPY 160 (2026-01-01); shared 30.00 USD
    /// (ann, equal), 1000 JPY (bob, equal), 20.00 CHF (ann, no rate); an unshared 12.00 USD on 2026-02-14 and
    /// 5.00 EUR on 2026-02-01; a deleted USD expense; a transfer of 5.00 USD from bob to ann.
    private static func ledger(_ kind: LedgerStoreKind) throws -> (TestLedger, ann: UUID, bob: UUID) {
        let ledger = try TestLedger(kind, currency: try #require(Currency(code: "EUR")))
        var client = EngineClient(ledger.engine)
        let ann = UUID(), bob = UUID()
        for (id, name) in [(ann, "ann"), (bob, "bob")] {
            #expect(try client.push { kindItem($0, .member, id, base: 0, ["name": .string(name), "status": "active"]) }.isApplied)
        }
        let both = try SplitSpec(method: .equal, parts: [SplitSpec.Part(member: ann, weight: 1), SplitSpec.Part(member: bob, weight: 1)])
        #expect(try client.put(UUID(), base: 0, Self.shared(3_000, "USD", date: "2026-01-15", payer: ann, split: both)).isApplied)
        #expect(try client.put(UUID(), base: 0, Self.shared(1_000, "JPY", date: "2026-02-05", payer: bob, split: both)).isApplied)
        #expect(try client.put(UUID(), base: 0, Self.shared(2_000, "CHF", date: "2026-02-10", payer: ann, split: both)).isApplied)
        #expect(try client.put(UUID(), base: 0, fields(amount: 1_200, currency: "USD", category: "food", date: "2026-02-14")).isApplied)
        #expect(try client.put(UUID(), base: 0, fields(amount: 500, currency: "EUR", category: "travel", date: "2026-02-01")).isApplied)
        let dropped = UUID()
        #expect(try client.put(dropped, base: 0, fields(amount: 99, currency: "USD", category: "food", date: "2026-02-02")).isApplied)
        #expect(try client.delete(dropped, base: 1).isApplied)
        #expect(try client.push {
            kindItem($0, .transfer, UUID(), base: 0, ["from": .string(UUIDText.lowercased(bob)), "to": .string(UUIDText.lowercased(ann)),
                                                      "amount": .number(JSONNumber(500)), "currency": "USD", "date": "2026-02-20"])
        }.isApplied)
        for (date, from, to, text) in [("2026-01-01", "USD", "EUR", "0.92"), ("2026-01-01", "EUR", "JPY", "160")] {
            let (id, values) = try rateRecord(date, from, to, text)
            #expect(try client.push { kindItem($0, .rate, id, base: 0, values) }.isApplied)
        }
        return (ledger, ann, bob)
    }

    @Test("converted stats are the core's builder over the range's records and rates read as one state", arguments: LedgerStoreKind.allCases)
    func convertedStatistics(kind: LedgerStoreKind) throws {
        let (ledger, _, _) = try Self.ledger(kind)
        let engine = ledger.engine
        let euro = try #require(Currency(code: "EUR"))
        let from = try #require(CalendarDay("2026-01-01")), to = try #require(CalendarDay("2026-02-28"))
        let read = try engine.store.records(.converting(from: from, to: to))
        #expect(read.expenses.count == 5 && read.rates.count == 2 && read.head == engine.store.head)
        for valuation in [Valuation.then, .periodEnd, .on(to)] {
            for (byCategory, currency) in [(false, nil), (true, nil), (false, Currency.usd)] {
                let query = try StatisticsQuery(period: .month, from: from, to: to, byCategory: byCategory, currency: currency, today: to)
                let conversion = ViewConversion(target: euro, valuation: valuation)
                let answer = try engine.statistics(query, fromRecords: conversion)
                var builder = ConvertedStatisticsBuilder(query: query, converter: CurrencyConverter(
                    table: RateTable(read.rates, ledgerCurrency: euro), conversion))
                for expense in read.expenses { try builder.add(expense) }
                #expect(answer == StatsResult(statistics: try builder.build(), cursor: engine.store.head, conversion: conversion,
                                              unconverted: builder.converter.unconverted), "\(valuation) \(byCategory) \(String(describing: currency))")
            }
        }
        // At then: January 30.00 USD × 0.92 = 27.60; February 1000 JPY / 160 = 6.25, 12.00 USD × 0.92 = 11.04 and
        // 5.00 EUR: 22.29. 20.00 CHF has no rate.
        let query = try StatisticsQuery(period: .month, from: from, to: to, today: to)
        let then = try engine.statistics(query, fromRecords: ViewConversion(target: euro))
        #expect(then.statistics.tables.map(\.currency) == [euro] && then.statistics.tables.first?.rows.map(\.total) == [2_760, 2_229])
        #expect(then.unconverted.map { "\($0.currency.code) \($0.amount ?? -1) \($0.reason.rawValue)" } == ["CHF 2000 no_rate"])
    }

    @Test("converted balances are the core's over the shared records, transfers and rates read as one state", arguments: LedgerStoreKind.allCases)
    func convertedBalances(kind: LedgerStoreKind) throws {
        let (ledger, ann, bob) = try Self.ledger(kind)
        let engine = ledger.engine
        let euro = try #require(Currency(code: "EUR")), today = try #require(CalendarDay("2026-03-01"))
        let read = try engine.store.records(.convertedBalances)
        #expect(read.expenses.count == 3 && read.rates.count == 2 && read.data.filter { $0.kind == .transfer }.count == 1)
        for valuation in [Valuation.then, .periodEnd, .on(try #require(CalendarDay("2025-12-31")))] {
            for currency in [nil, Currency.usd] {
                let conversion = ViewConversion(target: euro, valuation: valuation)
                let answer = try engine.balances(currency: currency, converting: conversion, today: today)
                var converter = CurrencyConverter(table: RateTable(read.rates, ledgerCurrency: euro), conversion)
                let core = try read.balances(in: currency, converting: &converter, periodEnd: today)
                #expect(answer == BalancesResult(core, currency: nil, cursor: engine.store.head, conversion: conversion,
                                                 unconverted: converter.unconverted), "\(valuation) \(String(describing: currency))")
                #expect(answer.balances.allSatisfy { $0.currency == euro } && answer.balances.reduce(0) { $0 + $1.balance.net } == 0)
            }
        }
        // At then: ann paid 27.60 (13.80 each), bob 6.25 (3.12 / 3.13 by the expense's id) and 4.60 back to ann.
        let then = try engine.balances(currency: nil, converting: ViewConversion(target: euro), today: today)
        let annRow = try #require(then.balances.first { $0.balance.member == ann }), bobRow = try #require(then.balances.first { $0.balance.member == bob })
        #expect(annRow.balance.paid == 2_760 && bobRow.balance.paid == 625 + 460)
        // ann's share: 13.80 + 3.12 or 3.13 + the 4.60 paid back to her; net 27.60 − that.
        #expect(annRow.balance.net == -bobRow.balance.net && (607...608).contains(annRow.balance.net), "\(then)")
        #expect(then.unconverted.map { "\($0.currency.code) \($0.amount ?? -1)" } == ["CHF 2000"])
        // A day before every rate: only the EUR records would convert, and there are none shared: no rows, all listed.
        let early = try engine.balances(currency: nil, converting: ViewConversion(target: euro, valuation: .on(try #require(CalendarDay("2025-12-31")))),
                                        today: today)
        #expect(early.balances.isEmpty && early.unconverted.map(\.currency.code) == ["CHF", "JPY", "USD"])
    }
}
