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
        let converter = try currencyConverter(ledger)
        // What the conversion left out: the local converter's, or the daemon's answer's.
        var unconverted: [UnconvertedTotal] = []
        let member = try chosenMember(ledger)
        if let converter, member != nil || !command[ExpenseOptions.server] {
            (statistics, unconverted) = try convertedStatistics(ledger, query: query, member: member, tags: tags, converter: converter)
        } else if let member {
            statistics = try PeriodStatisticsBuilder.statistics(memberParts(ledger, member, ExpenseFilter(from: query.from, to: query.to, tags: tags)),
                                                         query: query)
        } else if !tags.isEmpty && !command[ExpenseOptions.server] {
            // The store's per-day totals know no tags: the expenses with them, counted one by one.
            statistics = try PeriodStatisticsBuilder.statistics(ledger.list(ExpenseFilter(from: query.from, to: query.to, tags: tags)),
                                                                query: query)
            noteUnsynced(ledger)
        } else if command[ExpenseOptions.server] {
            var asked = query
            asked.tags = tags
            let result = try serverStatistics(asked, conversion: converter?.conversion, ledger: ledger)
            statistics = result.statistics
            unconverted = result.unconverted
        } else {
            statistics = try ledger.statistics(query)
            noteUnsynced(ledger)
        }
        if command[ExpenseOptions.json] {
            console.out(StatsReport.json(statistics, conversion: converter?.conversion, unconverted: unconverted))
        } else if command[ExpenseOptions.csv] {
            // CSV is one rectangular table: what was not converted is left out of it (standard error says so).
            console.out(StatsReport.csv(statistics))
        } else if statistics.tables.isEmpty && unconverted.isEmpty {
            console.err("No expenses from \(query.from) to \(query.to).")
        } else {
            let money = moneyDisplay(ledger)
            if !statistics.tables.isEmpty {
                console.out(StatsReport.render(statistics, chart: console.isTerminal, money: money))
            }
            if let converter { for line in unconvertedLines(unconverted, into: converter.target, money: money) { console.out(line + "\n") } }
        }
        if let converter { tellUnconverted(unconverted, into: converter.target) }
    }

    /// The statistics of `query` with every amount (or `member`'s part of it) converted by `converter`, expense by
    /// expense, through the core's ``ExpenseCore/ConvertedStatisticsBuilder`` (the daemon's too), and what it left
    /// out. `--currency` keeps the expenses in that currency, before they are converted; `--at end` values each
    /// amount on the last day of its row's period (a whole week, month, quarter or year). With `tags`, only the
    /// expenses that carry every one of them.
    func convertedStatistics(_ ledger: LocalLedger, query: StatisticsQuery, member: UUID?, tags: [String] = [],
                             converter: CurrencyConverter) throws -> (PeriodStatistics, [UnconvertedTotal]) {
        var builder = ConvertedStatisticsBuilder(query: query, converter: converter)
        try ledger.forEach(ExpenseFilter(from: query.from, to: query.to, tags: tags)) { expense in
            if let part = member.map(expense.part) ?? expense { try builder.add(part) }
        }
        return (try builder.build(), builder.converter.unconverted)
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

    /// The daemon's figures for `query` (the authority), converted as `conversion` says (`--in`), as
    /// `summary --server` asks for its totals.
    func serverStatistics(_ query: StatisticsQuery, conversion: ViewConversion? = nil, ledger: LocalLedger) throws -> StatsResult {
        var engine = SyncEngine(ledger: ledger, remote: try remote(ledger))
        engine.configuration.attempts = 2
        var result: StatsResult?
        try engine.retrying { _ in
            let connection = try SyncConnection(remote: engine.remote, clientId: try ledger.store.clientId() ?? UUID(),
                                                clientName: nil, connectTimeout: connectTimeout)
            defer { connection.close() }
            result = try connection.call(StatsRequest(query: query, conversion: conversion))
        }
        guard let result else { throw CommandFailure(.failure, "Error: the daemon sent no statistics") }
        return result
    }
}
