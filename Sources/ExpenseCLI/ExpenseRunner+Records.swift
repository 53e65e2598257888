import CommandLineKit
import ExpenseClient
import ExpenseCore

extension ExpenseRunner {
    /// `expense add AMOUNT CATEGORY [--date D] [--note N] [--currency C] [--paid AMOUNT] …`: prints the new id.
    /// `--paid` is refused on an expense in the ledger's currency (``ExpenseFieldOptions/checkCharged(_:changes:ledgerCurrency:)``).
    func add() throws {
        let ledger = try ledger()
        let currency = try command.value(ExpenseFieldOptions.currency) ?? ledger.defaultCurrency()
        let amount = try Money.parse(command[ExpenseArguments.amount] ?? "", currency: currency)
        let expense = try ledger.journaledAdd(try ExpenseFieldOptions.creation(
            command, amount: amount, currency: currency, category: command[ExpenseArguments.category], members: memberNames(ledger),
            ledgerCurrency: try ledger.ledgerCurrency()))
        console.out(expense.idString + "\n")
        // A part counts in its own category's budget, and the whole expense in each of its tags' budgets: any of
        // them it may have taken over too.
        let targets = [BudgetTarget.category(expense.category)] + (expense.parts?.parts ?? []).map { .category($0.category) }
            + expense.tags.map { .tag($0) }
        warnOverBudget(ledger, targets: targets, currency: expense.currency, on: expense.date)
    }

    /// `expense edit ID [--amount A] [--category C] [--date D] [--note N] [--currency X] [--paid A | --no-paid] …`:
    /// prints the id.
    func edit() throws {
        guard !ExpenseFieldOptions.given(in: command).isEmpty else {
            throw usage("Nothing to change: give at least one of " + ExpenseFieldOptions.listed)
        }
        _ = try ExpenseFieldOptions.checked(command)
        let ledger = try ledger()
        let record = try ledger.find(command[ExpenseArguments.id] ?? "")
        let ledgerCurrency = try ledger.ledgerCurrency()
        let changes = try ExpenseFieldOptions.changes(command, currentCurrency: record.expense.currency, members: memberNames(ledger),
                                                      ledgerCurrency: ledgerCurrency)
        try ExpenseFieldOptions.checkCharged(record.expense.draft.merging(changes), changes: changes, ledgerCurrency: ledgerCurrency)
        try ExpenseFieldOptions.checkParts(of: record.expense, changes: changes)
        let updated = try ledger.journaledEdit(record, changes: changes)
        console.out(updated.idString + "\n")
    }

    /// `expense delete ID`: prints the id of the deleted expense.
    func delete() throws {
        let ledger = try ledger()
        let record = try ledger.find(command[ExpenseArguments.id] ?? "")
        try ledger.journaledDelete(record)
        console.out(record.expense.idString + "\n")
        let amount = moneyDisplay(ledger).text(record.expense.amount, currency: record.expense.currency)
        console.err("Deleted \(record.expense.date) \(amount) \(record.expense.category).")
    }

    /// `expense config set currency EUR` (any case: `eur` is EUR) or `expense config set locale de_DE|C|auto`.
    func configSet() throws {
        let value = command[ExpenseArguments.value] ?? ""
        switch command[ExpenseArguments.key] {
        case "currency":
            // ISO 4217 codes are upper case; only ASCII letters are changed, so `éur` stays invalid.
            let code = String(value.unicodeScalars.map { ("a"..."z").contains($0) ? Character(String($0).uppercased()) : Character($0) })
            try ledger().setDefaultCurrency(try ExpenseValidator.validateCurrency(code))
        case "locale":
            guard MoneyDisplay.isValidSetting(value) else {
                throw CommandFailure(.dataError, "Error: invalid_locale: '\(value)' is not a locale this system knows "
                    + "(such as de_DE, en_IN or ja_JP), C, POSIX, or auto (follow LC_ALL, LC_MONETARY and LANG)")
            }
            let store = try ledger().store
            if value == MoneyDisplay.automatic {
                try store.setMetaValue(nil, for: .displayLocale)
            } else {
                try store.setMetaValue(MoneyDisplay.canonicalSetting(value), for: .displayLocale)
            }
        case "timezone":
            try setLedgerTimeZone(value)
        case "me":
            try setMe(value)
        case let key:
            throw usage("Unknown setting '\(key ?? "")'; the settings are: \(Self.settings.joined(separator: ", "))")
        }
    }

    /// `expense config get [currency|locale]`.
    func configGet() throws {
        let ledger = try ledger(readOnly: true)
        let currency = try ledger.defaultCurrency().code
        let locale = try ledger.store.metaValue(.displayLocale) ?? MoneyDisplay.automatic
        let zone = try? ledgerTimeZoneSetting(ledger)
        switch command[ExpenseArguments.key] {
        case nil:
            console.out("currency \(currency)\nlocale \(locale)\n" + (zone.flatMap { $0 }.map { "timezone \($0)\n" } ?? "")
                        + ((try? meName(ledger)).flatMap { $0 }.map { "me \(DisplayText.escaped($0))\n" } ?? ""))
        case "timezone": console.out((zone.flatMap { $0 } ?? "local") + "\n")
        case "currency": console.out(currency + "\n")
        case "locale": console.out(locale + "\n")
        case "me": console.out((try meName(ledger)).map { DisplayText.escaped($0) + "\n" } ?? "")
        case let key?: throw usage("Unknown setting '\(key)'; the settings are: \(Self.settings.joined(separator: ", "))")
        }
    }

    /// The names `config set` and `config get` accept.
    static let settings = ["currency", "locale", "timezone", "me"]

    /// How this command shows money to people (see ``MoneyDisplay/resolve(environment:configured:)``).
    func moneyDisplay(_ ledger: LocalLedger) -> MoneyDisplay {
        MoneyDisplay.resolve(environment: environment, configured: try? ledger.store.metaValue(.displayLocale))
    }
}
