import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation

extension ExpenseRunner {
    /// `expense stats [--period P] [--from D] [--to D] [--by category] [--currency C] [--member M] [--in CODE [--at W]]
    /// [--server] [--json|--csv]`.
    func stats() throws {
        let query = try statisticsQuery()
        let tags = try tagFilter()
        guard !(command[ExpenseOptions.json] && command[ExpenseOptions.csv]) else { throw usage("--json and --csv cannot be combined") }
        let ledger = try readingLedger()
        var statistics: PeriodStatistics
        var converter = try currencyConverter(ledger)
        let member = try chosenMember(ledger)
        if converter != nil && command[ExpenseOptions.server] {
            throw usage("--in converts the local copy's amounts; the daemon's stats (--server) does not convert yet")
        }
        if converter != nil {
            statistics = try convertedStatistics(ledger, query: query, member: member, tags: tags, converter: &converter)
        } else if let member {
            statistics = try PeriodStatisticsBuilder.statistics(memberParts(ledger, member, ExpenseFilter(from: query.from, to: query.to, tags: tags)),
                                                         query: query)
        } else if !tags.isEmpty {
            // The store's per-day totals know no tags: the expenses with them, counted one by one.
            statistics = try PeriodStatisticsBuilder.statistics(ledger.list(ExpenseFilter(from: query.from, to: query.to, tags: tags)),
                                                                query: query)
            noteUnsynced(ledger)
        } else if command[ExpenseOptions.server] {
            statistics = try serverStatistics(query, ledger: ledger)
        } else {
            statistics = try ledger.statistics(query)
            noteUnsynced(ledger)
        }
        if command[ExpenseOptions.json] {
            console.out(StatsReport.json(statistics, converter: converter))
        } else if command[ExpenseOptions.csv] {
            // CSV is one rectangular table: what was not converted is left out of it (standard error says so).
            console.out(StatsReport.csv(statistics))
        } else if statistics.tables.isEmpty && (converter?.unconverted.isEmpty ?? true) {
            console.err("No expenses from \(query.from) to \(query.to).")
        } else {
            let money = moneyDisplay(ledger)
            if !statistics.tables.isEmpty {
                console.out(StatsReport.render(statistics, chart: console.isTerminal, money: money))
            }
            if let converter { for line in unconvertedLines(converter.unconverted, into: converter.target, money: money) { console.out(line + "\n") } }
        }
        if let converter { tellUnconverted(converter.unconverted, into: converter.target) }
    }

    /// The statistics of `query` with every amount (or `member`'s part of it) converted by `converter`, expense by
    /// expense. `--currency` keeps the expenses in that currency, before they are converted; `--at end` values
    /// each amount on the last day of its row's period (a whole week, month, quarter or year).
    func convertedStatistics(_ ledger: LocalLedger, query: StatisticsQuery, member: UUID?, tags: [String] = [],
                             converter: inout CurrencyConverter?) throws -> PeriodStatistics {
        var converted = query
        converted.currency = nil
        var builder = PeriodStatisticsBuilder(query: converted)
        try ledger.forEach(ExpenseFilter(from: query.from, to: query.to, tags: tags)) { expense in
            guard let part = member.map(expense.part) ?? expense, query.currency.map({ $0 == part.currency }) ?? true else { return }
            let end = query.period.end(startingOn: query.period.start(containing: part.date))
            if let amount = converter?.convert(part, periodEnd: end) { try builder.add(amount) }
        }
        var statistics = try builder.build()
        statistics.query = query
        return statistics
    }

    /// The query of `--period`, `--from`, `--to`, `--by` and `--currency`; the range left out is resolved by
    /// the core's one rule (the current period and the 11 before it).
    func statisticsQuery() throws -> StatisticsQuery {
        let period = try command.value(ExpenseOptions.statisticsPeriod) ?? .month
        let byCategory = try command.value(ExpenseOptions.statisticsGrouping) ?? false
        let currency = try command.value(ExpenseFieldOptions.currency)
        let from = try command.value(ExpenseOptions.from), to = try command.value(ExpenseOptions.to)
        do {
            return try StatisticsQuery.resolving(period: period, from: from, to: to,
                                                 byCategory: byCategory, currency: currency,
                                                 today: CalendarDay.today())
        } catch {
            throw usage(error.message)
        }
    }

    /// The daemon's figures for `query` (the authority), as `summary --server` asks for its totals.
    func serverStatistics(_ query: StatisticsQuery, ledger: LocalLedger) throws -> PeriodStatistics {
        var engine = SyncEngine(ledger: ledger, remote: try remote(ledger))
        engine.configuration.attempts = 2
        var result: PeriodStatistics?
        try engine.retrying { _ in
            let connection = try SyncConnection(remote: engine.remote, clientId: try ledger.store.clientId() ?? UUID(),
                                                clientName: nil, connectTimeout: connectTimeout)
            defer { connection.close() }
            result = try connection.call(StatsRequest(query: query)).statistics
        }
        guard let result else { throw CommandFailure(.failure, "Error: the daemon sent no statistics") }
        return result
    }
}
