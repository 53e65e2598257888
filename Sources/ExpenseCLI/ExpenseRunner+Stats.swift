import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation

extension ExpenseRunner {
    /// `expense stats [--period P] [--from D] [--to D] [--by category] [--currency C] [--server] [--json|--csv]`.
    func stats() throws {
        let query = try statisticsQuery()
        guard !(command[ExpenseOptions.json] && command[ExpenseOptions.csv]) else { throw usage("--json and --csv cannot be combined") }
        let ledger = try readingLedger()
        let statistics: PeriodStatistics
        if let member = try chosenMember(ledger) {
            statistics = try PeriodStatisticsBuilder.statistics(memberParts(ledger, member, ExpenseFilter(from: query.from, to: query.to)),
                                                         query: query)
        } else if command[ExpenseOptions.server] {
            statistics = try serverStatistics(query, ledger: ledger)
        } else {
            statistics = try ledger.statistics(query)
            noteUnsynced(ledger)
        }
        if command[ExpenseOptions.json] {
            console.out(StatsReport.json(statistics))
        } else if command[ExpenseOptions.csv] {
            console.out(StatsReport.csv(statistics))
        } else if statistics.tables.isEmpty {
            console.err("No expenses from \(query.from) to \(query.to).")
        } else {
            console.out(StatsReport.render(statistics, chart: console.isTerminal, money: moneyDisplay(ledger)))
        }
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
