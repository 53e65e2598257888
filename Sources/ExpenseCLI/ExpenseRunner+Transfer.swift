import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation

extension ExpenseRunner {
    /// `expense settle [--currency C] [--json]`: the transfers that would settle everyone up.
    func settleShow() throws {
        let ledger = try readingLedger()
        var converter = try currencyConverter(ledger)
        let balances: Balances, names: MemberDirectory, transfers: [Balances.Transfer]
        if converter != nil {
            // Converted (`--in`): the balances of `balances --in`, one currency; --currency picked the records.
            (balances, names) = try sharedBalances(ledger, currency: try command.value(ExpenseFieldOptions.currency), converting: &converter)
            transfers = balances.currencies.flatMap { balances.settlement(in: $0) }
        } else {
            (balances, names) = try sharedBalances(ledger)
            transfers = try chosenCurrencies(balances).flatMap { balances.settlement(in: $0) }
        }
        if command[ExpenseOptions.json] {
            let array = JSONValue.array(transfers.map { transfer in
                .object(["from": .string(names.name(transfer.from)), "to": .string(names.name(transfer.to)),
                         "fromId": .string(UUIDText.lowercased(transfer.from)), "toId": .string(UUIDText.lowercased(transfer.to)),
                         "amount": .int(transfer.amount), "currency": .string(transfer.currency.code)])
            })
            guard let converter else { return console.out(JSONWriter.prettyText(array)) }
            console.out(JSONWriter.prettyText(.object(["in": .string(converter.target.code), "at": .string(converter.valuation.description),
                                                       "transfers": array, "unconverted": Self.unconvertedJSON(converter.unconverted)])))
            return tellUnconverted(converter.unconverted, into: converter.target)
        }
        let money = moneyDisplay(ledger)
        if transfers.isEmpty {
            console.err("Everyone is settled up.")
        }
        for transfer in transfers {
            console.out("\(DisplayText.escaped(names.name(transfer.from))) pays \(DisplayText.escaped(names.name(transfer.to))) "
                        + money.text(transfer.amount, currency: transfer.currency) + "\n")
        }
        if let converter {
            for line in unconvertedLines(converter.unconverted, into: converter.target, money: money) { console.out(line + "\n") }
            tellUnconverted(converter.unconverted, into: converter.target)
        }
    }

    /// `expense settle record FROM TO AMOUNT [--currency C] [--date D]`: prints the transfer's id.
    func settleRecord() throws {
        let ledger = try ledger()
        let members = try memberNames(ledger)
        let from = try members.anyMember(command[ExpenseArguments.payingMember] ?? "")
        let to = try members.anyMember(command[ExpenseArguments.paidMember] ?? "")
        let currency = try command.value(ExpenseFieldOptions.currency) ?? ledger.defaultCurrency()
        let amount = try Money.parse(command[ExpenseArguments.amount] ?? "", currency: currency)
        let date = try command.value(ExpenseFieldOptions.date).map(ExpenseValidator.validateDate) ?? CalendarDay.today()
        let transfer = Transfer(id: UUID(), from: from, to: to, amount: amount, currency: currency, date: date)
        try ledger.put(.transfer, id: transfer.id, fields: transfer.fields, journal: "settle record")
        console.out(UUIDText.lowercased(transfer.id) + "\n")
    }

    /// `expense settle list [--json]`.
    func settleList() throws {
        let ledger = try ledger(readOnly: true)
        let transfers = try Self.transfers(LedgerDataCache(store: ledger.store))
        let names = MemberDirectory(members: try memberNames(ledger).members)
        if command[ExpenseOptions.json] {
            console.out(JSONWriter.prettyText(.array(transfers.map { transfer in
                .object(["id": .string(UUIDText.lowercased(transfer.id)), "from": .string(names.name(transfer.from)),
                         "to": .string(names.name(transfer.to)), "fromId": .string(UUIDText.lowercased(transfer.from)),
                         "toId": .string(UUIDText.lowercased(transfer.to)), "amount": .int(transfer.amount),
                         "currency": .string(transfer.currency.code), "date": .string(transfer.date.description)])
            })))
            return
        }
        guard !transfers.isEmpty else { return console.err("No transfers recorded.") }
        let money = moneyDisplay(ledger)
        for transfer in transfers {
            console.out("\(transfer.date)  \(UUIDText.lowercased(transfer.id).prefix(8))  \(DisplayText.escaped(names.name(transfer.from))) "
                        + "paid \(DisplayText.escaped(names.name(transfer.to))) \(money.text(transfer.amount, currency: transfer.currency))\n")
        }
    }

    /// `expense settle remove ID`.
    func settleRemove() throws {
        let ledger = try ledger()
        let prefix = (command[ExpenseArguments.id] ?? "").lowercased()
        guard prefix.count >= LocalLedger.minimumPrefixLength else { throw StoreError.idPrefixTooShort(prefix) }
        let matches = try Self.transfers(LedgerDataCache(store: ledger.store)).filter { UUIDText.lowercased($0.id).hasPrefix(prefix) }
        guard let transfer = matches.first else {
            throw CommandFailure(.failure, "Error: unknown_id: no transfer has an id starting with \(DisplayText.quoted(prefix)); "
                                 + "see `expense settle list`")
        }
        guard matches.count == 1 else { throw StoreError.ambiguousId(prefix, matches: matches.map { UUIDText.lowercased($0.id) }) }
        _ = try ledger.deleteRecord(id: transfer.id, journal: "settle remove")
        console.err("Removed the transfer \(UUIDText.lowercased(transfer.id).prefix(8)).")
    }

    /// The recorded transfers, by date then id.
    static func transfers(_ data: LedgerDataCache) throws -> [Transfer] {
        try data.records(.transfer).compactMap { try? LedgerDataValidator.transfer(id: $0.id, fields: $0.fields) }
            .sorted { ($0.date, UUIDText.lowercased($0.id)) < ($1.date, UUIDText.lowercased($1.id)) }
    }
}
