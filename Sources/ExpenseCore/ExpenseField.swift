import FoundationEssentials

/// The fields of an expense, named as they are on the wire and in the CLI.
///
/// What each field is made of is said here once, for code that compares, copies or groups fields without naming
/// them (the client's queued differences and their check against a pulled record, the daemon's conflict rule).
public enum ExpenseField: String, Sendable, Hashable, CaseIterable {
    case id, amount, currency, category, date, note
    /// Who paid: a member's id, or none (an expense no one is owed for).
    case paidBy
    /// How the amount is shared among members (``SplitSpec``), or not shared.
    case split
    /// The amount actually charged in the ledger's currency (`--paid`), in its minor units; 0: none. Money with the
    /// amount: it overrides the rate of any conversion into the ledger's currency (``CurrencyConverter``).
    case charged
    /// The expense's tags (``ExpenseTags``), a set: a conflict group of its own whose concurrent edits merge as a
    /// set (Protocol.md §7.4) instead of conflicting.
    case tags
    /// The parts of the amount in other categories (``ExpenseParts``, `--part`); empty: none. Money with the
    /// amount: parts are made for the amount they divide.
    case parts
    /// The row's original text as an import read it (a bank's description, kept as the bank gave it), which import
    /// rules read as the bank's text; empty: none (an expense made by `add`). Set by an import only, never by an
    /// option: a conflict group of its own, so no edit of another field ever moves it.
    case source

    /// The fields that make up an expense's values (every one but the id), in the order they are validated.
    public static let values: [ExpenseField] = allCases.filter { $0 != .id }

    /// The fields that are one value with this one for versions and conflicts: money, the amount, the currency,
    /// the split, the amount charged and the parts together (Protocol.md §7.4: shares and parts never merge with an
    /// amount they were not made for, nor an amount charged with an amount it was not charged for); every other
    /// field alone.
    public var conflictGroup: [ExpenseField] {
        switch self {
        case .amount, .currency, .split, .charged, .parts: [.amount, .currency, .split, .charged, .parts]
        case .id, .category, .date, .note, .paidBy, .tags, .source: [self]
        }
    }

    /// One field of each conflict group, in field order: `amount` (money), `category`, `date`, `note`, `paidBy`, `tags`, `source`. A store
    /// keeps one version per group (`FieldVersions`) and a history entry one change per group.
    public static let conflictGroups: [ExpenseField] = values.filter { $0.conflictGroup.first == $0 }

    /// Something held once per conflict group, in ``conflictGroups``' order (`ExpenseFieldTests` checks the count).
    public typealias PerConflictGroup<Element> = InlineArray<7, Element>

    /// Something held once per value field, in ``values``' order (`ExpenseFieldTests` checks the count).
    public typealias PerValue<Element> = InlineArray<11, Element>

    /// The position of this field's conflict group in ``conflictGroups``; `nil` for `id`, which never changes.
    public var conflictGroupIndex: Int? {
        // A switch, not a search of `conflictGroups`: the daemon asks for every field of every edit it decides.
        // `ExpenseFieldTests` holds it to `conflictGroups`.
        switch self {
        case .id: nil
        case .amount, .currency, .split, .charged, .parts: 0
        case .category: 1
        case .date: 2
        case .note: 3
        case .paidBy: 4
        case .tags: 5
        case .source: 6
        }
    }

    /// Whether a stale edit of this field is merged with a concurrent change of it instead of conflicting (the
    /// tags, a set: Protocol.md §7.4). The daemon then stores what the merge gives, not what the edit sent, so a
    /// client may not assume that an applied edit of it left the value it sent.
    public var mergesConcurrentEdits: Bool { self == .tags }

    /// The conflict group's name, where versions and history name it: `money` for the amount, the currency, the
    /// split, the amount charged and the parts, else the field's own name.
    public var conflictGroupName: String {
        switch self {
        case .amount, .currency, .split, .charged, .parts: "money"
        case .id, .category, .date, .note, .paidBy, .tags, .source: rawValue
        }
    }

    /// Whether `a` and `b` hold the same value in this field (text by its bytes, ``ExactText``).
    public func same(_ a: Expense, _ b: Expense) -> Bool {
        switch self {
        case .id: a.id == b.id
        case .amount: a.amount == b.amount
        case .currency: a.currency == b.currency
        case .category: ExactText.same(a.category, b.category)
        case .date: a.date == b.date
        case .note: ExactText.same(a.note, b.note)
        case .paidBy: a.paidBy == b.paidBy
        case .split: a.split == b.split
        case .charged: a.charged == b.charged
        case .tags: ExpenseTags.same(a.tags, b.tags)
        case .parts: ExactText.same(a.partsText, b.partsText)
        case .source: ExactText.same(a.source, b.source)
        }
    }

    /// This field's conflict group's value in `expense` as a person reads it, where two sides are shown: money
    /// with its code (`12.50 EUR`, its split as typed when it has one: `split shares:alice=2,bob=1`, and the
    /// amount charged when there is one: `charged 128.40 EUR` in `ledgerCurrency`, or in minor units, `charged
    /// 12840`, for a caller that does not know it; its parts when it has some: `parts household=12.30`), the date
    /// as `YYYY-MM-DD`, the payer's name (empty: none), tags joined by commas,
    /// text (the note, the bank's text) as it is. Members are named by `names` (by default their ids, for a caller that knows no names).
    public func text(of expense: Expense, names: (UUID) -> String = { UUIDText.lowercased($0) }, ledgerCurrency: Currency? = nil) -> String {
        switch self {
        case .id: expense.idString
        case .amount, .currency, .split, .charged, .parts:
            Money.format(expense.amount, currency: expense.currency, includeCode: true)
                + (expense.split.map { " split " + $0.typedText(currency: expense.currency, name: names) } ?? "")
                + (expense.charged.map { charged in
                    " charged " + (ledgerCurrency.map { Money.format(charged, currency: $0, includeCode: true) } ?? "\(charged)")
                } ?? "")
                + (expense.parts.map { " parts " + $0.typedText(currency: expense.currency) } ?? "")
        case .category: expense.category
        case .date: expense.date.description
        case .note: expense.note
        case .paidBy: expense.paidBy.map(names) ?? ""
        case .tags: expense.tagsText
        case .source: expense.source
        }
    }

    /// Sets this field of `draft` to `expense`'s value (as a value, never as text).
    public func copy(from expense: Expense, to draft: inout ExpenseDraft) {
        switch self {
        case .id: draft.id = .value(expense.id)
        case .amount: draft.amount = expense.amount
        case .currency: draft.currency = .value(expense.currency)
        case .category: draft.category = expense.category
        case .date: draft.date = .value(expense.date)
        case .note: draft.note = expense.note
        case .paidBy: draft.paidBy = expense.paidByText
        case .split: draft.split = expense.splitText
        case .charged: draft.charged = expense.chargedValue
        case .tags: draft.tags = expense.tags
        case .parts: draft.parts = expense.partsText
        case .source: draft.source = expense.source
        }
    }

    /// Whether `draft` gives this field and its value is `expense`'s (a value by its text, ``DraftInput``);
    /// `nil` when `draft` does not give it.
    public func matches(_ draft: ExpenseDraft, _ expense: Expense) -> Bool? {
        switch self {
        case .id: draft.id.map { $0 == .value(expense.id) }
        case .amount: draft.amount.map { $0 == expense.amount }
        case .currency: draft.currency.map { $0 == .value(expense.currency) }
        case .category: draft.category.map { ExactText.same($0, expense.category) }
        case .date: draft.date.map { $0 == .value(expense.date) }
        case .note: draft.note.map { ExactText.same($0, expense.note) }
        case .paidBy: draft.paidBy.map { ExactText.same($0, expense.paidByText) }
        case .split: draft.split.map { ExactText.same($0, expense.splitText) }
        case .charged: draft.charged.map { $0 == expense.chargedValue }
        case .tags: draft.tags.map { ExpenseTags.same(ExpenseTags.normalized($0), expense.tags) }
        case .parts: draft.parts.map { ExactText.same($0, expense.partsText) }
        case .source: draft.source.map { ExactText.same($0, expense.source) }
        }
    }
}
