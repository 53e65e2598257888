import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation

extension ExpenseRunner {
    /// `expense rate set DATE FROM TO RATE`: 1 FROM = RATE TO from DATE on; prints the rate's id.
    func rateSet() throws {
        let ledger = try ledger()
        let rate = try ExchangeRate(date: ExpenseValidator.validateDate(command[ExpenseArguments.rateDate] ?? ""),
                                    from: ExpenseValidator.validateCurrency(command[ExpenseArguments.rateFrom] ?? ""),
                                    to: ExpenseValidator.validateCurrency(command[ExpenseArguments.rateTo] ?? ""),
                                    rate: Rate(command[ExpenseArguments.rate] ?? ""))
        try ledger.put(.rate, id: rate.id, fields: rate.fields, journal: "rate set")  // set again: also the person's answer to a conflict ("mine")
        console.out(UUIDText.lowercased(rate.id) + "\n")
    }

    /// `expense rate list [--from D] [--to D] [--json]`.
    func rateList() throws {
        let ledger = try ledger(readOnly: true)
        let data = try LedgerDataCache(store: ledger.store)
        let from = try command.value(ExpenseOptions.from), to = try command.value(ExpenseOptions.to)
        let rates = try Self.exchangeRates(data).filter { rate in
            (from.map { rate.date >= $0 } ?? true) && (to.map { rate.date <= $0 } ?? true)
        }
        if command[ExpenseOptions.json] {
            console.out(JSONWriter.prettyText(.array(rates.map { rate in
                .object(["id": .string(UUIDText.lowercased(rate.id)), "date": .string(rate.date.description),
                         "from": .string(rate.from.code), "to": .string(rate.to.code), "rate": .string(rate.rate.description)])
            })))
            return
        }
        guard !rates.isEmpty else { return console.err(from == nil && to == nil ? "No exchange rates set." : "No exchange rate in those days.") }
        let conflicted = Set(try data.conflictDetails().map(\.id))
        for rate in rates {
            console.out("\(rate.date)  1 \(rate.from.code) = \(rate.rate) \(rate.to.code)" + (conflicted.contains(rate.id) ? "  CONFLICT" : "") + "\n")
        }
        if !conflicted.isEmpty {
            console.err("A rate marked CONFLICT was set on another machine too: it shows the daemon's side; "
                        + "`expense rate set` it again to keep yours.")
        }
    }

    /// `expense rate remove DATE FROM TO`.
    func rateRemove() throws {
        let ledger = try ledger()
        let date = try ExpenseValidator.validateDate(command[ExpenseArguments.rateDate] ?? "")
        let from = try ExpenseValidator.validateCurrency(command[ExpenseArguments.rateFrom] ?? "")
        let to = try ExpenseValidator.validateCurrency(command[ExpenseArguments.rateTo] ?? "")
        guard try ledger.deleteRecord(id: ExchangeRate.id(date: date, from: from, to: to), journal: "rate remove") else {
            throw CommandFailure(.failure, "Error: not_found: no rate of \(from.code) in \(to.code) on \(date); see `expense rate list`")
        }
        console.err("Removed the rate of \(from.code) in \(to.code) on \(date).")
    }

    /// `expense rate import FILE`: every rate of the file, or none if a row is bad; prints `N set, M already set`.
    func rateImport() throws {
        let path = command[ExpenseArguments.rateFile] ?? ""
        let data = path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: path)
        guard let data, let text = String(data: data, encoding: .utf8) else {
            throw CommandFailure(.ioError, "Error: cannot read \(path): " + (data == nil ? "no such file or permission denied" : "it is not UTF-8 text"))
        }
        let file = try RateFile.parse(text)
        for warning in file.warnings { console.err("Warning: \(warning)") }
        let ledger = try ledger()
        let cache = try LedgerDataCache(store: ledger.store)
        var set = 0, present = 0
        for rate in file.rates {
            if let stored = try cache.record(id: rate.id), !stored.deleted, stored.fields == rate.fields {
                present += 1
                continue
            }
            try ledger.put(.rate, id: rate.id, fields: rate.fields)
            set += 1
        }
        console.out("\(set) set, \(present) already set\n")
    }

    /// The ledger's exchange rates, by date, then pair.
    static func exchangeRates(_ data: LedgerDataCache) throws -> [ExchangeRate] {
        try data.records(.rate).compactMap { try? LedgerDataValidator.rate(id: $0.id, fields: $0.fields) }
            .sorted { ($0.date, $0.from.code, $0.to.code) < ($1.date, $1.from.code, $1.to.code) }
    }
}
