import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation

extension ExpenseRunner {
    /// `expense list [--from D] [--to D] [--category C] [--tag T …] [--json]`.
    func list() throws {
        let filter = ExpenseFilter(from: try command.value(ExpenseOptions.from), to: try command.value(ExpenseOptions.to),
                                   category: command[ExpenseOptions.categoryFilter], tags: try tagFilter())
        let ledger = try readingLedger()
        defer { noteUnsynced(ledger) }
        if command[ExpenseOptions.json] {
            var stream = ExpenseStream(descriptor: STDOUT_FILENO, target: "standard output", format: .json,
                                       members: MemberDirectory(members: try memberNames(ledger).members))
            stream.begin()
            try ledger.forEach(filter) { try stream.write($0) }
            try stream.end()
            return
        }
        let expenses = try ledger.list(filter)
        if expenses.isEmpty {
            console.err("No expenses.")
        } else {
            console.out(ExpenseTable.render(expenses, money: moneyDisplay(ledger), members: MemberDirectory(members: try memberNames(ledger).members),
                                            ledgerCurrency: try ledger.ledgerCurrency()))
        }
    }

    /// `expense summary [--by category|month] [--from D] [--to D] [--category C] [--json]`.
    func summary() throws {
        let grouping = try command.value(ExpenseOptions.summaryGrouping) ?? .none
        let query = SummaryQuery(from: try command.value(ExpenseOptions.from), to: try command.value(ExpenseOptions.to), category: command[ExpenseOptions.categoryFilter], groupBy: grouping)
        let tags = try tagFilter()
        let ledger = try readingLedger()
        let summary: Summary
        var converter = try currencyConverter(ledger)
        // What the conversion left out: the local converter's, or the daemon's answer's.
        var unconverted: [UnconvertedTotal] = []
        let member = try chosenMember(ledger)
        if member != nil || (converter != nil && !command[ExpenseOptions.server]) {
            // Expense by expense: one member's part, then converted (each amount rounded once).
            var aggregator = Aggregator(query: query)
            let today = CalendarDay.today()
            // Every category: the aggregator keeps the query's, a part of another category's expense included.
            try ledger.forEach(ExpenseFilter(from: query.from, to: query.to, tags: tags)) { expense in
                guard let part = member.map(expense.part) ?? expense else { return }
                guard converter != nil else { return try aggregator.add(part) }
                // --at end: a month's last day when grouped by month, else the end of the range (or today).
                let end = grouping == .month ? part.date.monthEnd : (query.to ?? today)
                if let converted = converter?.convert(part, periodEnd: end) { try aggregator.add(converted) }
            }
            summary = aggregator.summary
            unconverted = converter?.unconverted ?? []
        } else if command[ExpenseOptions.server] {
            var engine = SyncEngine(ledger: ledger, remote: try remote(ledger))
            engine.configuration.attempts = 2
            var result: SummaryResult?
            try engine.retrying { _ in
                let connection = try SyncConnection(remote: engine.remote, clientId: try ledger.store.clientId() ?? UUID(),
                                                    clientName: nil, connectTimeout: connectTimeout)
                defer { connection.close() }
                var asked = query
                asked.tags = tags
                result = try connection.call(SummaryRequest(query: asked, conversion: converter?.conversion))
            }
            summary = result?.summary ?? Summary(totals: [], groups: [])
            unconverted = result?.unconverted ?? []
        } else {
            summary = try ledger.summary(query, tags: tags)
            noteUnsynced(ledger)
        }
        let conversion = converter?.conversion
        if command[ExpenseOptions.json] {
            console.out(JSONWriter.prettyText(ExpenseJSON.summary(summary, groupBy: grouping, conversion: conversion, unconverted: unconverted)))
        } else if summary.totals.isEmpty && unconverted.isEmpty {
            console.err("No expenses.")
        } else {
            let money = moneyDisplay(ledger)
            if !summary.totals.isEmpty {
                console.out(SummaryReport.render(summary, chart: console.isTerminal, grouping: grouping, money: money))
            }
            if let conversion { for line in unconvertedLines(unconverted, into: conversion.target, money: money) { console.out(line + "\n") } }
        }
        if let conversion { tellUnconverted(unconverted, into: conversion.target) }
    }

    /// Says on standard error (so `--json` output stays clean) when local totals include changes the daemon
    /// has not seen yet. Only once a remote is configured: with no daemon, local totals are the only totals.
    func noteUnsynced(_ ledger: LocalLedger) {
        guard let pending = try? ledger.pendingCount(), pending > 0,
              (try? RemoteConfiguration.resolve(environment: environment, home: home, store: ledger.store)) != nil
        else { return }
        console.err("Note: includes \(pending) unsynced change\(pending == 1 ? "" : "s") (local estimate; `expense summary --server` is the authority).")
    }

    /// The tags of `--tag` (every one given; an expense must have them all), checked by the core's rule so that a
    /// tag no expense can have is a data error (exit 65), not an empty listing. The daemon's figures (`--server`)
    /// know no tags: the two together are a usage error.
    func tagFilter() throws -> [String] {
        let tags = command.texts(ExpenseOptions.tagFilter.spec)
        guard !tags.isEmpty else { return [] }
        return try ExpenseValidator.validateTags(tags)
    }
}
