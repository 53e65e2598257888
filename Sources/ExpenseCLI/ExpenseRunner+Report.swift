import CommandLineKit
import ExpenseClient
import ExpenseCore
import Foundation
import SystemKit

extension ExpenseRunner {
    /// How many of the largest expenses the report lists per currency.
    static let reportLargestCount = 10

    /// `expense report --output FILE.html [--from D] [--to D] [--currency C] [--member M] [--in CODE [--at W]]`.
    func report() throws {
        guard let output = command[ExpenseOptions.output] else { throw usage("--output FILE.html is required") }
        let currency = try command.value(ExpenseFieldOptions.currency)
        let from = try command.value(ExpenseOptions.from), to = try command.value(ExpenseOptions.to)
        let months: StatisticsQuery
        do {
            months = try StatisticsQuery.resolving(period: .month, from: from, to: to,
                                                   currency: currency, today: CalendarDay.today())
        } catch {
            throw usage(error.message)
        }
        let ledger = try readingLedger()
        var converter = try currencyConverter(ledger)
        let reports: [CurrencyReport]
        var conversion: ReportConversion?
        if var converting = converter {
            (reports, conversion) = try convertedReport(ledger, months: months, periodEnd: to ?? months.today, converter: &converting)
            converter = converting
        } else {
            reports = try currencyReports(ledger, months: months)
        }
        let html = HTMLReport.document(from: months.from, to: months.to, generated: months.today, currencies: reports,
                                       money: moneyDisplay(ledger), conversion: conversion)
        do {
            // Whole or untouched, and 0600 like the cache and exports: the report holds the same data.
            try AtomicFile.replace(output) { descriptor in
                if let errno = Console.write(descriptor, Array(html.utf8)) {
                    throw CommandFailure(.ioError, "Error: write_failed: \(output): \(String(cString: strerror(errno)))")
                }
            }
        } catch let failure as AtomicFile.Failure {
            throw CommandFailure(.ioError, "Error: write_failed: \(failure)")
        }
        noteUnsynced(ledger)
        console.err("Wrote \(output) (\(reports.count) currenc\(reports.count == 1 ? "y" : "ies"), \(months.from) to \(months.to)).")
        if let converter { tellUnconverted(converter.unconverted, into: converter.target) }
    }

    /// Per currency the numbers of `summary --by category` and `stats --period month` for the range, and its
    /// largest expenses.
    func currencyReports(_ ledger: LocalLedger, months: StatisticsQuery) throws -> [CurrencyReport] {
        let member = try chosenMember(ledger)
        let summaryQuery = SummaryQuery(from: months.from, to: months.to, groupBy: .category)
        let range = ExpenseFilter(from: months.from, to: months.to, tags: try tagFilter())
        // With --member, every figure is of their parts (``ExpenseCore/Expense/part(of:)``), read once; with --tag,
        // of the expenses with the tags (the store's per-day totals know no tags), read once too.
        let parts = try member.map { try memberParts(ledger, $0, range) } ?? (range.tags.isEmpty ? nil : ledger.list(range))
        let summary: Summary
        if let parts {
            var aggregator = Aggregator(query: summaryQuery)
            for part in parts { try aggregator.add(part) }
            summary = aggregator.summary
        } else {
            summary = try ledger.summary(summaryQuery)
        }
        // Budgets where the cache holds them (a SQLite cache): each for its period containing the report's last day.
        // With --tag only the budgets of those tags: a category budget counts expenses the report leaves out.
        let budgets: [BudgetReport.Entry]
        if let data = try? LedgerDataCache(store: ledger.store) {
            let shown = try Self.budgets(data).filter { budget in
                guard !range.tags.isEmpty else { return true }
                if case .tag(let tag) = budget.target { return ExpenseTags.contains(range.tags, tag) }
                return false
            }
            budgets = try Self.statuses(shown, on: min(months.to, months.today), ledger: ledger, member: member)
        } else {
            budgets = []
        }
        let statistics = try parts.map { try PeriodStatisticsBuilder.statistics($0, query: months) } ?? ledger.statistics(months)
        var largest: [Currency: [Expense]] = [:]
        func each(_ body: (Expense) throws -> Void) throws {
            if let parts { try parts.forEach(body) } else { try ledger.forEach(range, body) }
        }
        try each { expense in
            guard months.currency.map({ $0 == expense.currency }) ?? true else { return }
            var list = largest[expense.currency, default: []]
            guard list.count < Self.reportLargestCount || expense.amount > (list.last?.amount ?? 0) else { return }
            list.append(expense)
            list.sort { ($0.amount, $1.date) > ($1.amount, $0.date) }
            if list.count > Self.reportLargestCount { list.removeLast() }
            largest[expense.currency] = list
        }
        // Each currency's balances on their own, so that one that cannot be summed leaves the others; none where
        // the cache keeps no members (the JSON file).
        let names = MemberDirectory(members: try memberNames(ledger).members)
        let ledgerCurrency = try ledger.ledgerCurrency()
        func balances(in currency: Currency) -> Balances? { try? sharedBalances(ledger, currency: currency).0 }
        return summary.totals.compactMap { total in
            let shared = balances(in: total.currency)
            guard months.currency.map({ $0 == total.currency }) ?? true,
                  let monthly = statistics.tables.first(where: { $0.currency == total.currency })
            else { return nil }
            let categories = summary.groups.filter { $0.currency == total.currency }
                .sorted { $0.amount != $1.amount ? $0.amount > $1.amount : $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            let listed = largest[total.currency] ?? []
            return CurrencyReport(currency: total.currency, total: total, categories: categories,
                                  months: statistics.periods, monthly: monthly, largest: listed,
                                  charged: Dictionary(listed.compactMap { expense in expense.charged.map { (expense.id, $0) } },
                                                      uniquingKeysWith: { first, _ in first }),
                                  ledgerCurrency: ledgerCurrency,
                                  budgets: budgets.filter { $0.budget.currency == total.currency },
                                  balances: (shared?.balances(in: total.currency) ?? []).map {
                                      CurrencyReport.NamedBalance(name: names.name($0.member), balance: $0)
                                  },
                                  settlement: (shared?.settlement(in: total.currency) ?? []).map {
                                      CurrencyReport.NamedTransfer(from: names.name($0.from), to: names.name($0.to), amount: $0.amount)
                                  })
        }
    }
}
