import CommandLineKit
import ExpenseClient
import ExpenseCore

/// An expense's field options, `--amount`, `--category`, `--date`, `--note` and `--currency`, declared once
/// with their one rule and their help on each command that offers them: `edit` and `resolve --edit` (all five)
/// and `add` (`--date`, `--note`, `--currency`; its amount and category are arguments). A new field's option
/// is one more here: `add`, `edit` and `resolve` take their options from ``addSpecs``, ``editSpecs`` and
/// ``resolveSpecs``, and their drafts from ``creation(_:amount:currency:category:)`` and ``changes(_:currentCurrency:)``.
enum ExpenseFieldOptions {
    static let amount = TypedOption<String>.text("amount", value: "amount", help: "The amount.")
    static let category = TypedOption<String>.text("category", value: "category", help: "The category.")
    static let date = TypedOption<String>.text("date", value: "date", help: "The day, YYYY-MM-DD.")
    static let note = TypedOption<String>.text("note", value: "text", help: "The note.")
    /// Validated by the core (exit 65, `invalid_currency`).
    static let currency = TypedOption<Currency>("currency", value: "code", help: "The currency.") {
        try ExpenseValidator.validateCurrency($0)
    }

    /// One option with its help on each command: `add` (`nil`: not an option of `add`), `edit`, `resolve --edit`.
    private struct Use {
        let spec: @Sendable (String) -> OptionSpec
        let add: String?
        let edit: String
        let resolve: String
    }

    /// The options in the order the help lists them and the messages name them.
    private static let uses: [Use] = [
        Use(spec: { amount.help($0).spec }, add: nil, edit: "The new amount.", resolve: "With --edit: the amount."),
        Use(spec: { category.help($0).spec }, add: nil, edit: "The new category.", resolve: "With --edit: the category."),
        Use(spec: { date.help($0).spec }, add: "The day of the expense, YYYY-MM-DD (default: today).",
            edit: "The new day, YYYY-MM-DD.", resolve: "With --edit: the day, YYYY-MM-DD."),
        Use(spec: { note.help($0).spec }, add: "A note (up to 300 characters).",
            edit: "The new note (an empty text clears it).", resolve: "With --edit: the note."),
        Use(spec: { currency.help($0).spec },
            add: "An ISO 4217 code (default: the configured currency, else the synced ledger's, else USD).",
            edit: "The new currency; needs --amount, since the same digits mean different money.",
            resolve: "With --edit: the currency (needs --amount)."),
    ]

    /// The options of `add`, `edit` and `resolve`, each with that command's help.
    static let addSpecs = uses.compactMap { use in use.add.map(use.spec) }
    static let editSpecs = uses.map { $0.spec($0.edit) }
    static let resolveSpecs = uses.map { $0.spec($0.resolve) }

    /// The options' specs in ``uses``' order.
    static let all = editSpecs

    /// The long names, in that order.
    static let names = all.map(\.name)

    /// `--amount, --category, --date, --note, --currency`, for "give at least one of" messages.
    static let listed = names.map { "--" + $0 }.joined(separator: ", ")

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

    /// The expense `add` makes: its arguments (`amount` parsed in `currency`, `category`) and every field option
    /// given, the day defaulting to today; what else a creation may leave out is completed by the core
    /// (``ExpenseCore/ExpenseDraft/completeCreation(currency:)``).
    static func creation(_ command: ParsedCommand, amount: Int64, currency: Currency, category: String?) throws -> ExpenseDraft {
        var draft = ExpenseDraft(id: nil, amount: amount, currency: .value(currency), category: category,
                                 date: try command.value(date).map(DraftInput.text) ?? .value(CalendarDay.today()),
                                 note: try command.value(note))
        draft.completeCreation(currency: currency)
        return draft
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
