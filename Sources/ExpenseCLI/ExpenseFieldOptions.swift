import CommandLineKit
import ExpenseClient
import ExpenseCore

/// An expense's field options, `--amount`, `--category`, `--date`, `--note` and `--currency`, declared once
/// with their one rule: used by `edit` and `resolve --edit` (all five) and by `add` (`--date`, `--note`,
/// `--currency`). Each command gives them its own help text; the names, placeholders and parsing are these.
enum ExpenseFieldOptions {
    static let amount = TypedOption<String>.text("amount", value: "amount", help: "The amount.")
    static let category = TypedOption<String>.text("category", value: "category", help: "The category.")
    static let date = TypedOption<String>.text("date", value: "date", help: "The day, YYYY-MM-DD.")
    static let note = TypedOption<String>.text("note", value: "text", help: "The note.")
    /// Validated by the core (exit 65, `invalid_currency`).
    static let currency = TypedOption<Currency>("currency", value: "code", help: "The currency.") {
        try ExpenseValidator.validateCurrency($0)
    }

    /// The five options' specs in the order the help lists them and the messages name them.
    static let all = [amount.spec, category.spec, date.spec, note.spec, currency.spec]

    /// The long names, in that order.
    static let names = all.map(\.name)

    /// `--amount, --category, --date, --note, --currency`, for "give at least one of" messages.
    static let listed = names.map { "--" + $0 }.joined(separator: ", ")

    /// The five options' specs, in that order, with a command's own help texts.
    static func specs(amount: String, category: String, date: String, note: String, currency: String) -> [OptionSpec] {
        [Self.amount.help(amount).spec, Self.category.help(category).spec, Self.date.help(date).spec,
         Self.note.help(note).spec, Self.currency.help(currency).spec]
    }

    /// The field options given on `command`, in ``names`` order.
    static func given(in command: ParsedCommand) -> [String] {
        all.filter(command.has).map(\.name)
    }

    /// The field options given on `command`, after the rule that `--currency` needs `--amount`.
    /// - Throws: ``UsageError`` for `--currency` without `--amount`.
    static func checked(_ command: ParsedCommand) throws(UsageError) -> [String] {
        if command.has(currency), !command.has(amount) {
            throw UsageError("--currency needs --amount too, since the same digits mean different money in another currency",
                             path: command.path)
        }
        return given(in: command)
    }

    /// The changes `command` gives, as a draft: the amount parsed in `--currency`, else in `currentCurrency`
    /// (the expense's own); category, date and note as given, validated where the draft is applied.
    /// - Throws: ``UsageError`` as ``checked(_:)``; the core's validation errors for the currency and amount.
    static func changes(_ command: ParsedCommand, currentCurrency: Currency) throws -> ExpenseDraft {
        _ = try checked(command)
        var fields = ExpenseDraft(category: try command.value(category), date: try command.value(date),
                                  note: try command.value(note))
        if let amountText = try command.value(amount) {
            let currency = try command.value(currency) ?? currentCurrency
            fields.currency = .value(currency)
            fields.amount = try Money.parse(amountText, currency: currency)
        }
        return fields
    }
}
