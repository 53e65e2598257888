import ExpenseClient
import ExpenseCore
import Foundation

/// What `report --in` says about its conversion: the line under the title, and what was left out.
struct ReportConversion: Sendable {
    /// The line under the title: the currency everything was converted into, and how amounts were valued.
    var subtitle: String
    /// One line per currency and reason of what was not converted, then the budgets and balances left out.
    var unconverted: [String]
}

extension ExpenseRunner {
    /// `report --in`: one report in the converter's target, from the same expenses as ``currencyReports(_:months:)``
    /// (or `--member`'s parts), each converted once (`--at end`: the end of the range, `--to` or today), the
    /// budgets converted as `budget status --in` does on the report's last day, and the balances as
    /// `balances --in`. `--currency` keeps the expenses in that currency before they are converted.
    /// - Returns: the report (none when nothing was converted) and what the document says about the conversion.
    func convertedReport(_ ledger: LocalLedger, months: StatisticsQuery, periodEnd: CalendarDay,
                         converter: inout CurrencyConverter) throws -> ([CurrencyReport], ReportConversion) {
        let member = try chosenMember(ledger)
        let target = converter.target
        var aggregator = Aggregator(query: SummaryQuery(from: months.from, to: months.to, groupBy: .category))
        var monthly = months
        monthly.currency = nil
        var builder = PeriodStatisticsBuilder(query: monthly)
        var largest: [Expense] = []
        // The amount charged of each converted expense (which no longer carries it), for the list of the largest.
        var charged: [UUID: Int64] = [:]
        try ledger.forEach(ExpenseFilter(from: months.from, to: months.to, tags: try tagFilter())) { expense in
            guard let part = member.map(expense.part) ?? expense, months.currency.map({ $0 == part.currency }) ?? true,
                  let converted = converter.convert(part, periodEnd: periodEnd) else { return }
            try aggregator.add(converted)
            try builder.add(converted)
            if let amount = part.charged { charged[part.id] = amount }
            guard largest.count < Self.reportLargestCount || converted.amount > (largest.last?.amount ?? 0) else { return }
            largest.append(converted)
            largest.sort { ($0.amount, $1.date) > ($1.amount, $0.date) }
            if largest.count > Self.reportLargestCount { largest.removeLast() }
        }
        let summary = aggregator.summary
        var statistics = try builder.build()
        statistics.query = months
        let money = moneyDisplay(ledger)
        var unconverted = unconvertedLines(converter.unconverted, into: converter.target, money: money)
        // Budgets and balances reach other records (earlier periods, every shared expense): their own converters,
        // so that an expense is listed once; what they leave out is named in a line of its own.
        var budgets = ConvertedBudgets()
        if let data = try? LedgerDataCache(store: ledger.store) {
            var budgetConverter = CurrencyConverter(table: converter.table, target: target, valuation: converter.valuation)
            budgets = try Self.convertedStatuses(Self.budgets(data), on: min(months.to, months.today), ledger: ledger,
                                                 member: member, converter: &budgetConverter)
            unconverted += unconvertedBudgetLines(budgets, into: target)
        }
        var balanceConverter: CurrencyConverter? = CurrencyConverter(table: converter.table, target: target, valuation: converter.valuation)
        let shared = try? sharedBalances(ledger, currency: months.currency, converting: &balanceConverter).0
        if let left = balanceConverter?.unconvertedCount, left > 0, shared != nil {
            unconverted.append("the balances leave out \(left) shared expense\(left == 1 ? "" : "s") or transfer\(left == 1 ? "" : "s") with no rate")
        }
        let names = MemberDirectory(members: try memberNames(ledger).members)
        let valued = switch converter.valuation {
        case .then: "each at its own date"
        case .periodEnd: "all at \(periodEnd), the end of the range"
        case .on(let day): "all at \(day)"
        }
        let conversion = ReportConversion(subtitle: "Every amount converted into \(target.code) with the ledger's rates, valued \(valued).",
                                          unconverted: unconverted)
        guard let total = summary.totals.first(where: { $0.currency == target }),
              let table = statistics.tables.first(where: { $0.currency == target }) else { return ([], conversion) }
        let categories = summary.groups.filter { $0.currency == target }
            .sorted { $0.amount != $1.amount ? $0.amount > $1.amount : $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        let report = CurrencyReport(
            currency: target, total: total, categories: categories, months: statistics.periods, monthly: table, largest: largest,
            charged: charged.filter { id, _ in largest.contains { $0.id == id } }, ledgerCurrency: try ledger.ledgerCurrency(),
            budgets: budgets.entries,
            balances: (shared?.balances(in: target) ?? []).map { CurrencyReport.NamedBalance(name: names.name($0.member), balance: $0) },
            settlement: (shared?.settlement(in: target) ?? []).map {
                CurrencyReport.NamedTransfer(from: names.name($0.from), to: names.name($0.to), amount: $0.amount)
            })
        return ([report], conversion)
    }
}
