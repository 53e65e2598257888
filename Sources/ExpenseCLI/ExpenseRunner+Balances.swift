import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation

extension ExpenseRunner {
    /// `expense balances [--currency C] [--in CODE [--at W]] [--server] [--json]`: from the local copy, or with
    /// `--server` as the daemon computed them from its own records (the authority); printed alike, names from the
    /// local members. With `--in`, every shared expense and transfer converted once, into one currency.
    func balances() throws {
        let ledger = try readingLedger()
        let rows: [BalancesResult.Row], names: MemberDirectory
        var converter = try currencyConverter(ledger)
        // What the conversion left out: the local converter's, or the daemon's answer's.
        let unconverted: [UnconvertedTotal]
        if command[ExpenseOptions.server] {
            // `--at end` is the ledger's today here, sent so that the daemon values amounts on the same day.
            let today = converter.map { _ in balancesToday(ledger) }
            let result = try serverBalances(currency: try command.value(ExpenseFieldOptions.currency), conversion: converter?.conversion,
                                            today: today, ledger: ledger)
            rows = result.balances
            unconverted = result.unconverted
            names = MemberDirectory(members: try memberNames(ledger).members)
        } else {
            let (balances, directory) = try sharedBalances(ledger, currency: try command.value(ExpenseFieldOptions.currency),
                                                           converting: &converter)
            rows = BalancesResult(balances, currency: nil, cursor: 0).balances
            unconverted = converter?.unconverted ?? []
            names = directory
        }
        if command[ExpenseOptions.json] {
            let array = JSONValue.array(rows.map { row in
                let balance = row.balance
                return .object(["member": .string(UUIDText.lowercased(balance.member)), "name": .string(names.name(balance.member)),
                                "currency": .string(row.currency.code), "paid": .int(balance.paid), "share": .int(balance.share),
                                "net": .int(balance.net)])
            })
            guard let converter else { return console.out(JSONWriter.prettyText(array)) }
            // Converted: an object, so that the currency, the valuation and what was left out can go with the rows.
            console.out(JSONWriter.prettyText(.object(["in": .string(converter.target.code), "at": .string(converter.valuation.description),
                                                       "balances": array, "unconverted": Self.unconvertedJSON(unconverted)])))
            return tellUnconverted(unconverted, into: converter.target)
        }
        let money = moneyDisplay(ledger)
        let leftOut = converter.map { unconvertedLines(unconverted, into: $0.target, money: money) } ?? []
        guard !rows.isEmpty || !leftOut.isEmpty else { return console.err("No shared expenses.") }
        if !rows.isEmpty { console.out("MEMBER                CUR         PAID        SHARE          NET\n") }
        for row in rows {
            let balance = row.balance
            console.out(TerminalWidth.padded(TerminalWidth.truncated(DisplayText.escaped(names.name(balance.member)), to: 20), to: 20)
                        + "  " + row.currency.code + "  " + [balance.paid, balance.share, balance.net].map { value in
                            let text = money.figure(value, currency: row.currency)
                            return String(repeating: " ", count: max(0, 11 - text.count)) + text
                        }.joined(separator: "  ") + "\n")
        }
        for line in leftOut { console.out(line + "\n") }
        if let converter { tellUnconverted(unconverted, into: converter.target) }
    }

    /// The daemon's balances (the authority), only `currency`'s records when it is given, converted as
    /// `conversion` says (`--in`, `--at end` on `today`), as `summary --server` asks for its totals.
    func serverBalances(currency: Currency?, conversion: ViewConversion? = nil, today: CalendarDay? = nil,
                        ledger: LocalLedger) throws -> BalancesResult {
        var engine = SyncEngine(ledger: ledger, remote: try remote(ledger))
        engine.configuration.attempts = 2
        var result: BalancesResult?
        try engine.retrying { _ in
            let connection = try SyncConnection(remote: engine.remote, clientId: try ledger.store.clientId() ?? UUID(),
                                                clientName: nil, connectTimeout: connectTimeout)
            defer { connection.close() }
            result = try connection.call(BalancesRequest(currency: currency, conversion: conversion, today: today))
        }
        guard let result else { throw CommandFailure(.failure, "Error: the daemon sent no balances") }
        return result
    }

    /// The balances of every shared expense and recorded transfer of the local copy (only those in `currency`
    /// when it is given, as the daemon reads them), and the members' names.
    func sharedBalances(_ ledger: LocalLedger, currency: Currency? = nil) throws -> (Balances, MemberDirectory) {
        var none: CurrencyConverter?
        return try sharedBalances(ledger, currency: currency, converting: &none)
    }

    /// ``sharedBalances(_:currency:)``, and with a `converter` (`--in`) every shared expense's amount and every
    /// transfer converted once into its target, then divided by the expense's own split
    /// (``ExpenseCore/Balances/init(expenses:transfers:currency:converting:periodEnd:)``); `--at end` values them
    /// on the ledger's today (balances have no range).
    func sharedBalances(_ ledger: LocalLedger, currency: Currency? = nil,
                        converting converter: inout CurrencyConverter?) throws -> (Balances, MemberDirectory) {
        var shared: [Expense] = []
        try ledger.forEach { expense in
            if expense.split != nil { shared.append(expense) }
        }
        // Transfers live where members do: a cache that keeps neither (the JSON file) cannot tell balances.
        let data = try LedgerDataCache(store: ledger.store)
        let transfers = try Self.transfers(data)
        let balances: Balances
        do throws(SplitError) {
            if var converting = converter {
                balances = try Balances(expenses: shared, transfers: transfers, currency: currency, converting: &converting,
                                        periodEnd: balancesToday(ledger))
                converter = converting
            } else {
                balances = try Balances(expenses: shared, transfers: transfers, currency: currency)
            }
        } catch {
            throw ValidationError.invalidSplit(error)
        }
        return (balances, MemberDirectory(members: try memberNames(ledger).members))
    }

    /// The day `balances --in … --at end` values amounts on (balances have no range): the ledger's today, else
    /// the local one; the daemon is sent it, so both value on the same day.
    func balancesToday(_ ledger: LocalLedger) -> CalendarDay {
        (try? ledgerToday(try LedgerDataCache(store: ledger.store))) ?? CalendarDay.today()
    }

    /// `--currency`'s currency, or every currency with shared expenses.
    func chosenCurrencies(_ balances: Balances) throws -> [Currency] {
        guard let currency = try command.value(ExpenseFieldOptions.currency) else { return balances.currencies }
        return balances.currencies.contains(currency) ? [currency] : []
    }
}

/// Members' names by id, for showing balances and transfers.
struct MemberDirectory {
    private let names: [UUID: String]

    init(members: [Member]) {
        names = Dictionary(members.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
    }

    /// The member's name, or their id when this copy does not know them (not pulled yet).
    func name(_ id: UUID) -> String { names[id] ?? UUIDText.lowercased(id) }
}
