import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation

extension ExpenseRunner {
    /// `expense balances [--currency C] [--json]`.
    func balances() throws {
        let ledger = try readingLedger()
        let (balances, names) = try sharedBalances(ledger)
        let currencies = try chosenCurrencies(balances)
        let rows = currencies.flatMap { currency in balances.balances(in: currency).map { (currency, $0) } }
        if command[ExpenseOptions.json] {
            console.out(JSONWriter.prettyText(.array(rows.map { currency, balance in
                .object(["member": .string(UUIDText.lowercased(balance.member)), "name": .string(names.name(balance.member)),
                         "currency": .string(currency.code), "paid": .int(balance.paid), "share": .int(balance.share),
                         "net": .int(balance.net)])
            })))
            return
        }
        guard !rows.isEmpty else { return console.err("No shared expenses.") }
        let money = moneyDisplay(ledger)
        console.out("MEMBER                CUR         PAID        SHARE          NET\n")
        for (currency, balance) in rows {
            console.out(TerminalWidth.padded(TerminalWidth.truncated(DisplayText.escaped(names.name(balance.member)), to: 20), to: 20)
                        + "  " + currency.code + "  " + [balance.paid, balance.share, balance.net].map { value in
                            let text = money.figure(value, currency: currency)
                            return String(repeating: " ", count: max(0, 11 - text.count)) + text
                        }.joined(separator: "  ") + "\n")
        }
    }

    /// The balances of every shared expense and recorded transfer of the local copy, and the members' names.
    func sharedBalances(_ ledger: LocalLedger) throws -> (Balances, MemberDirectory) {
        var entries: [BalanceEntry] = []
        try ledger.forEach { expense in
            guard let payer = expense.paidBy, expense.split != nil else { return }
            entries.append(BalanceEntry(payer: payer, currency: expense.currency, amount: expense.amount, shares: expense.shares))
        }
        if let data = try? LedgerDataCache(store: ledger.store) { entries += try Self.transfers(data).map(\.balanceEntry) }
        let balances: Balances
        do throws(SplitError) { balances = try Balances(entries) } catch { throw ValidationError.invalidSplit(error) }
        return (balances, MemberDirectory(members: try memberNames(ledger).members))
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
