import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation

extension ExpenseRunner {
    /// The converter of `--in CODE [--at then|end|DATE]` with the ledger's rates, or `nil` without `--in`.
    /// - Throws: a usage error for `--at` without `--in`.
    func currencyConverter(_ ledger: LocalLedger) throws -> CurrencyConverter? {
        let valuation = try command.value(ExpenseOptions.valuation)
        guard let target = try command.value(ExpenseOptions.inCurrency) else {
            if valuation != nil { throw usage("--at values amounts for --in; give --in CODE too") }
            return nil
        }
        let rates = try ledger.dataCache.map(Self.exchangeRates) ?? []
        return CurrencyConverter(table: RateTable(rates, ledgerCurrency: try ledger.ledgerCurrency()), target: target,
                                 valuation: valuation ?? .then)
    }

    /// The lines that list what a converted view left out, one per currency and reason, for standard output
    /// beside the converted totals: `plus 120.00 CHF not converted: no rate into EUR on or before 2026-03-04`.
    func unconvertedLines(_ unconverted: [UnconvertedTotal], into target: Currency, money: MoneyDisplay) -> [String] {
        unconverted.map { left in
            let amount = left.amount.map { money.text($0, currency: left.currency) } ?? "more than \(Int64.max) minor units of \(left.currency.code)"
            let count = left.count == 1 ? "" : " (\(left.count) expenses)"
            switch left.reason {
            case .noRate:
                return "plus \(amount) not converted\(count): no \(left.currency.code) rate into \(target.code) "
                    + "on or before \(left.firstDay)" + (left.lastDay == left.firstDay ? "" : " (valued \(left.firstDay) to \(left.lastDay))")
            case .overflow:
                return "plus \(amount) not converted\(count): in \(target.code) it would exceed the largest amount"
            }
        }
    }

    /// Says on standard error how many amounts a converted view left out (the exit code stays 0).
    func tellUnconverted(_ unconverted: [UnconvertedTotal], into target: Currency) {
        let count = unconverted.reduce(Int64(0)) { $0 + $1.count }
        guard count > 0 else { return }
        console.err("Note: \(count) amount\(count == 1 ? " was" : "s were") not converted into \(target.code) "
                    + "and \(count == 1 ? "is" : "are") listed apart (`expense rate set` adds a rate).")
    }

    /// What a converted view left out, as `--json` entries.
    static func unconvertedJSON(_ unconverted: [UnconvertedTotal]) -> JSONValue {
        .array(unconverted.map { left -> JSONValue in
            let amount: JSONValue = left.amount.map { JSONValue.int($0) } ?? .null
            let entry: [String: JSONValue] = [
                "currency": .string(left.currency.code), "amount": amount, "count": .int(left.count),
                "reason": .string(left.reason.rawValue), "firstDay": .string(left.firstDay.description),
                "lastDay": .string(left.lastDay.description),
            ]
            return .object(entry)
        })
    }
}
