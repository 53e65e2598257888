import CommandLineKit
import ExpenseClient
import ExpenseCore
import Foundation

/// An expense's field options, `--amount`, `--category`, `--date`, `--note`, `--currency`, `--paid-by`, `--split`,
/// `--paid`, `--tag` (repeated), `--part` (repeated) and their `--no-…` forms, declared once
/// with their one rule and their help on each command that offers them: `edit` and `resolve --edit` (all five)
/// and `add` (`--date`, `--note`, `--currency`; its amount and category are arguments). A new field's option
/// is one more here: `add`, `edit` and `resolve` take their options from ``addSpecs``, ``editSpecs`` and
/// ``resolveSpecs``, and their drafts from ``creation(_:amount:currency:category:members:ledgerCurrency:)`` and
/// ``changes(_:currentCurrency:members:ledgerCurrency:)``.
///
/// One field has no option on purpose: `source`, the original text an import read (the bank's description). It
/// is kept as the bank gave it, so that rules read the bank's text whatever the note becomes; only an import sets
/// it, and neither the drafts of `add` and `edit` nor `resolve --edit` carry it.
enum ExpenseFieldOptions {
    static let amount = TypedOption<String>.text("amount", value: "amount", help: "The amount.")
    static let category = TypedOption<String>.text("category", value: "category", help: "The category.")
    static let date = TypedOption<String>.text("date", value: "date", help: "The day, YYYY-MM-DD.")
    static let note = TypedOption<String>.text("note", value: "text", help: "The note.")
    /// A member's name, resolved against the ledger's members (``MemberNames``).
    static let paidBy = TypedOption<String>.text("paid-by", value: "name", help: "Who paid.")
    /// A split as a person types it (``ExpenseCore/SplitSpec/parse(_:currency:member:everyone:)``).
    static let split = TypedOption<String>.text("split", value: "spec", help: "How the amount is shared.")
    /// `edit --no-split`: the expense is no longer shared.
    static let noSplit = Flag("no-split", help: "Stop sharing the expense.")
    /// `edit --no-paid-by`: no one is named as the payer (refused while the expense is shared).
    static let noPaidBy = Flag("no-paid-by", help: "Name no payer.")
    /// The amount charged in the ledger's currency, parsed in that currency (``ExpenseCore/Money/parse(_:currency:)``).
    static let paid = TypedOption<String>.text("paid", value: "amount", help: "The amount charged in the ledger's currency.")
    /// `edit --no-paid`: no amount charged; conversions into the ledger's currency use the rates again.
    static let noPaid = Flag("no-paid", help: "Forget the amount charged.")
    /// A tag, given once per tag (`--tag trip --tag work`); checked by the core (exit 65, `invalid_tags`).
    static let tag = TypedOption<String>.text("tag", value: "tag", help: "A tag (repeat the option for more).")
    /// `edit --no-tags`: the expense has no tags any more.
    static let noTags = Flag("no-tags", help: "Remove every tag.")
    /// One part of the amount in another category, `CATEGORY=AMOUNT`, given once per part
    /// (``ExpenseCore/ExpenseParts/init(typed:currency:)``, the amount in the expense's currency).
    static let part = TypedOption<String>.text("part", value: "category=amount", help: "A part in another category.")
    /// `edit --no-parts`: all of the amount is the expense's own category again.
    static let noParts = Flag("no-parts", help: "Drop the parts.")
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
        Use(spec: { paidBy.help($0).spec }, add: "Who paid, a member's name (default: `config set me`, else no one).",
            edit: "Who paid, a member's name.", resolve: "With --edit: who paid."),
        Use(spec: { split.help($0).spec },
            add: "Share it: alice,bob (equal), all, alice=2,bob=1 (shares), alice=50%,bob=50% or alice=12.50,bob=7.50 (exact).",
            edit: "Share it anew (forms as on add); with --amount, the shares follow the new amount.",
            resolve: "With --edit: the split."),
        Use(spec: { noSplit.help($0).spec }, add: nil, edit: "Stop sharing the expense.", resolve: "With --edit: no split."),
        Use(spec: { noPaidBy.help($0).spec }, add: nil, edit: "Name no payer (an expense that is not shared).",
            resolve: "With --edit: no payer."),
        Use(spec: { paid.help($0).spec },
            add: "The amount charged in the ledger's currency, as on a card statement (an expense in another currency); "
                + "converting into the ledger's currency then uses it instead of a rate.",
            edit: "The amount charged in the ledger's currency (an expense in another currency).",
            resolve: "With --edit: the amount charged in the ledger's currency."),
        Use(spec: { noPaid.help($0).spec }, add: nil, edit: "Forget the amount charged (conversions use the rates again).",
            resolve: "With --edit: no amount charged."),
        Use(spec: { tag.help($0).spec },
            add: "A tag, 1 to 32 characters without spaces or commas (repeat for more, at most 16).",
            edit: "The tags the expense has from now on, replacing its own (repeat for more).",
            resolve: "With --edit: the tags (repeat for more)."),
        Use(spec: { noTags.help($0).spec }, add: nil, edit: "Remove every tag.", resolve: "With --edit: no tags."),
        Use(spec: { part.help($0).spec },
            add: "A part of the amount in another category, CATEGORY=AMOUNT (repeat for each, at most "
                + "\(ExpenseParts.maximumParts)); the category argument keeps the rest, at least one minor unit.",
            edit: "The parts anew, CATEGORY=AMOUNT (repeat for each); the category keeps the rest.",
            resolve: "With --edit: the parts, CATEGORY=AMOUNT (repeat for each)."),
        Use(spec: { noParts.help($0).spec }, add: nil, edit: "Drop the parts (all of the amount is the category's).",
            resolve: "With --edit: no parts."),
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
        if command.has(split), command.has(noSplit.spec) {
            throw UsageError("--split and --no-split contradict each other; give one", path: command.path)
        }
        if command.has(paidBy), command.has(noPaidBy.spec) {
            throw UsageError("--paid-by and --no-paid-by contradict each other; give one", path: command.path)
        }
        if command.has(paid), command.has(noPaid.spec) {
            throw UsageError("--paid and --no-paid contradict each other; give one", path: command.path)
        }
        if command.has(tag.spec), command.has(noTags.spec) {
            throw UsageError("--tag and --no-tags contradict each other; give one", path: command.path)
        }
        if command.has(part), command.has(noParts.spec) {
            throw UsageError("--part and --no-parts contradict each other; give one", path: command.path)
        }
        return given(in: command)
    }

    /// The expense `add` makes: its arguments (`amount` parsed in `currency`, `category`) and every field option
    /// given, the day defaulting to today; what else a creation may leave out is completed by the core
    /// (``ExpenseCore/ExpenseDraft/completeCreation(currency:)``).
    /// - Parameter ledgerCurrency: the ledger's currency (``ExpenseClient/LocalLedger/ledgerCurrency()``), in which
    ///   `--paid` is parsed.
    static func creation(_ command: ParsedCommand, amount: Int64, currency: Currency, category: String?,
                         members: MemberNames, ledgerCurrency: Currency) throws -> ExpenseDraft {
        var draft = ExpenseDraft(id: nil, amount: amount, currency: .value(currency), category: category,
                                 date: try command.value(date).map(DraftInput.text) ?? .value(CalendarDay.today()),
                                 note: try command.value(note))
        draft.paidBy = try command.value(paidBy).map { try UUIDText.lowercased(members.payer($0)) } ?? members.defaultPayer
        draft.split = try command.value(split).map { try members.split($0, currency: currency).text }
        draft.charged = try command.value(paid).map { try charged($0, ledgerCurrency: ledgerCurrency) }
        try checkCharged(draft, changes: draft, ledgerCurrency: ledgerCurrency)
        let tags = command.texts(tag.spec)
        if !tags.isEmpty { draft.tags = tags }
        let typedParts = command.texts(part.spec)
        if !typedParts.isEmpty { draft.parts = try ExpenseParts(typed: typedParts, currency: currency).text }
        draft.completeCreation(currency: currency)
        return draft
    }

    /// The changes `command` gives, as a draft: the amount parsed in `--currency`, else in `currentCurrency`
    /// (the expense's own); category, date and note as given, validated where the draft is applied.
    /// - Throws: ``UsageError`` as ``checked(_:)``; the core's validation errors for the currency and amount.
    /// `--paid` is parsed in `ledgerCurrency`; whether the edited expense may have it is
    /// ``checkCharged(_:changes:ledgerCurrency:)``'s.
    static func changes(_ command: ParsedCommand, currentCurrency: Currency, members: MemberNames,
                        ledgerCurrency: Currency) throws -> ExpenseDraft {
        _ = try checked(command)
        var fields = ExpenseDraft(category: try command.value(category), date: try command.value(date),
                                  note: try command.value(note))
        let currency = try command.value(currency) ?? currentCurrency
        if let amountText = try command.value(amount) {
            fields.currency = .value(currency)
            fields.amount = try Money.parse(amountText, currency: currency)
        }
        if let name = try command.value(paidBy) { fields.paidBy = UUIDText.lowercased(try members.payer(name)) }
        if let spec = try command.value(split) { fields.split = try members.split(spec, currency: currency).text }
        if command[noSplit] { fields.split = "" }
        if command[noPaidBy] { fields.paidBy = "" }
        if let text = try command.value(paid) { fields.charged = try charged(text, ledgerCurrency: ledgerCurrency) }
        if command[noPaid] { fields.charged = 0 }
        if command.has(tag.spec) { fields.tags = command.texts(tag.spec) }
        if command[noTags] { fields.tags = [] }
        let typedParts = command.texts(part.spec)
        if !typedParts.isEmpty { fields.parts = try ExpenseParts(typed: typedParts, currency: currency).text }
        if command[noParts] { fields.parts = "" }
        return fields
    }

    /// Refuses an edit that leaves an expense's parts behind its money: a new currency (the parts' minor units
    /// would mean other money), or a new amount the parts no longer fit. Either needs `--part` or `--no-parts`
    /// with it; an edit that gives neither keeps the parts as they are. `expense` is the expense before the edit.
    /// - Throws: ``ExpenseCore/ValidationError/invalidParts(_:)`` (exit 65), saying what to give.
    static func checkParts(of expense: Expense, changes: ExpenseDraft) throws {
        guard let parts = expense.parts, changes.parts == nil else { return }
        let currency: Currency
        switch changes.currency {
        case .value(let value)?: currency = value
        case .text(let code)?: currency = try ExpenseValidator.validateCurrency(code)
        case nil: currency = expense.currency
        }
        if currency != expense.currency {
            throw ValidationError.invalidParts("the expense has parts in \(expense.currency.code); give --part again in "
                                               + "\(currency.code), or --no-parts, with a new currency")
        }
        let amount = changes.amount ?? expense.amount
        let category = changes.category.map { $0.trimmingWhitespace } ?? expense.category
        do {
            try parts.validate(amount: amount, currency: currency, category: category)
        } catch ValidationError.invalidParts(let detail) {
            throw ValidationError.invalidParts(detail + "; give the parts anew with --part, or --no-parts")
        }
    }

    /// `--paid`'s text as minor units of the ledger's currency.
    /// - Throws: ``ExpenseCore/ValidationError/invalidCharged(_:)`` for text that is not an amount of it.
    static func charged(_ text: String, ledgerCurrency: Currency) throws -> Int64 {
        do {
            return try Money.parse(text, currency: ledgerCurrency)
        } catch ValidationError.invalidAmount(let detail) {
            throw ValidationError.invalidCharged("--paid takes an amount in the ledger's currency, \(ledgerCurrency.code): \(detail)")
        }
    }

    /// Refuses an amount charged on an expense already in the ledger's currency: there it is the amount itself, and
    /// a second figure would only disagree with it. `draft` is the expense as it will be (an edit's `changes`
    /// merged with the expense: an edit that moves an expense with an amount charged into the ledger's currency
    /// must drop it with `--no-paid`). Only a change that sets an amount charged or the currency is checked, so
    /// that such an expense another program made (the daemon takes it) can still have its note changed.
    /// - Throws: ``ExpenseCore/ValidationError/invalidCharged(_:)`` (exit 65).
    static func checkCharged(_ draft: ExpenseDraft, changes: ExpenseDraft, ledgerCurrency: Currency) throws {
        guard changes.charged.map({ $0 != 0 }) == true || changes.currency != nil else { return }
        guard let charged = draft.charged, charged != 0, draft.currency?.text == ledgerCurrency.code else { return }
        throw ValidationError.invalidCharged("--paid is for an expense in another currency than the ledger's; this one is in "
                                             + "\(ledgerCurrency.code), the ledger's own, so its amount is what was charged "
                                             + "(give --no-paid to drop an amount charged)")
    }
}

/// The ledger's members as `--paid-by`, `--split` and `config set me` name them: by name (trimmed, compared by
/// its bytes), a member who left refused for anything new.
struct MemberNames {
    let members: [Member]
    /// Who pays by default on this machine (`config set me`), when that member is still active.
    let me: UUID?

    /// The default payer of `add`: `me`'s id, else none.
    var defaultPayer: String? { me.flatMap { id in members.first { $0.id == id && $0.isActive } }.map { UUIDText.lowercased($0.id) } }

    /// The active member named `name`.
    /// - Throws: ``ExpenseCore/ValidationError/invalidSplit(_:)`` with `unknown_member` or `member_left` (exit 65).
    func payer(_ name: String) throws -> UUID {
        do throws(SplitError) { return try active(name) } catch { throw ValidationError.invalidSplit(error) }
    }

    /// The member named `name`, one who left included (a transfer may pay them back).
    /// - Throws: ``ExpenseCore/ValidationError/invalidSplit(_:)`` with `unknown_member` (exit 65).
    func anyMember(_ name: String) throws -> UUID {
        guard let member = Member.named(name, in: members) else { throw ValidationError.invalidSplit(.unknownMember(name)) }
        return member.id
    }

    /// The split `typed` names (``ExpenseCore/SplitSpec/parse(_:currency:member:everyone:)``), `all` being the
    /// active members.
    func split(_ typed: String, currency: Currency) throws -> SplitSpec {
        do throws(SplitError) {
            return try SplitSpec.parse(typed, currency: currency, member: active,
                                       everyone: { members.filter(\.isActive).map(\.id) })
        } catch {
            throw ValidationError.invalidSplit(error)
        }
    }

    private func active(_ name: String) throws(SplitError) -> UUID {
        guard let member = Member.named(name, in: members) else { throw .unknownMember(name) }
        guard member.isActive else { throw .memberLeft(member.name) }
        return member.id
    }
}
