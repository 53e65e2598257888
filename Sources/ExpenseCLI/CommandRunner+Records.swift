import CommandLineKit
import ExpenseClient
import ExpenseCore

extension CommandRunner {
    /// `expense add AMOUNT CATEGORY [--date D] [--note N] [--currency C]`: prints the new id.
    func add() throws {
        let ledger = try ledger()
        let currency = try command.option("currency").map(ExpenseValidator.validateCurrency) ?? ledger.defaultCurrency()
        let amount = try Money.parse(command.argument("amount") ?? "", currency: currency)
        let expense = try ledger.add(ExpenseDraft(
            amount: amount, currency: currency.code, category: command.argument("category"),
            date: command.option("date") ?? CalendarDay.today().description, note: command.option("note") ?? ""))
        console.out(expense.idString + "\n")
    }

    /// `expense edit ID [--amount A] [--category C] [--date D] [--note N] [--currency X]`: prints the id.
    func edit() throws {
        let fields = ["amount", "category", "date", "note", "currency"]
        guard fields.contains(where: { command.option($0) != nil }) else {
            throw usage("Nothing to change: give at least one of --amount, --category, --date, --note, --currency")
        }
        if command.option("currency") != nil, command.option("amount") == nil {
            throw usage("--currency needs --amount too, since the same digits mean different money in another currency")
        }
        let ledger = try ledger()
        let record = try ledger.find(command.argument("id") ?? "")
        var changes = ExpenseDraft(category: command.option("category"), date: command.option("date"),
                                   note: command.option("note"))
        if let amountText = command.option("amount") {
            let currency = try command.option("currency").map(ExpenseValidator.validateCurrency) ?? record.expense.currency
            changes.currency = currency.code
            changes.amount = try Money.parse(amountText, currency: currency)
        }
        let updated = try ledger.edit(record, changes: changes)
        console.out(updated.idString + "\n")
    }

    /// `expense delete ID`: prints the id of the deleted expense.
    func delete() throws {
        let ledger = try ledger()
        let record = try ledger.find(command.argument("id") ?? "")
        try ledger.delete(record)
        console.out(record.expense.idString + "\n")
        console.err("Deleted \(record.expense.date) \(Money.format(record.expense.amount, currency: record.expense.currency, includeCode: true)) \(record.expense.category).")
    }

    /// `expense config set currency EUR`.
    func configSet() throws {
        guard command.argument("key") == "currency" else {
            throw usage("Unknown setting '\(command.argument("key") ?? "")'; the settings are: currency")
        }
        let currency = try ExpenseValidator.validateCurrency(command.argument("value") ?? "")
        try ledger().setDefaultCurrency(currency)
    }

    /// `expense config get [currency]`.
    func configGet() throws {
        let currency = try ledger(readOnly: true).defaultCurrency().code
        switch command.argument("key") {
        case nil: console.out("currency \(currency)\n")
        case "currency": console.out(currency + "\n")
        case let key?: throw usage("Unknown setting '\(key)'; the settings are: currency")
        }
    }
}
