import FoundationEssentials

/// A rule that categorises for you (`expense rule add`): when its conditions hold for an expense — all of them,
/// or any one with ``matchesAny`` — its actions change it. Rules run in ``position`` order on every row an import
/// reads and on the expenses `rule apply` picks, each seeing what the ones before it did.
///
/// Its fields (Protocol.md §10.2): `name` (optional), `position`, `match` (`all|any`), `conditions` and
/// `actions` (lists of objects, 1 to ``maximumConditions`` / ``maximumActions`` each), read and checked by
/// ``LedgerDataValidator/importRule(id:fields:)``. Each field is its own conflict field, so moving a rule on
/// one machine and renaming it on another do not conflict; two machines moving the same rule do.
public struct ImportRule: Hashable, Sendable, Identifiable {
    /// The most conditions a rule may have.
    public static let maximumConditions = 16
    /// The most actions a rule may have.
    public static let maximumActions = 16
    /// The gap between two positions a new rule leaves (``position(after:)``): room for 32 moves into one gap
    /// before ``position(between:and:)`` finds none.
    public static let positionGap: Int64 = 1 << 32

    public let id: UUID
    /// What the person called it; empty when unnamed (then its id's first 8 characters name it).
    public var name: String
    /// Where it runs among the ledger's rules: ascending, ties broken by id (``ordered(_:)``).
    public var position: Int64
    /// Whether one condition is enough (`--any`); else all must hold.
    public var matchesAny: Bool
    public var conditions: [RuleCondition]
    public var actions: [RuleAction]

    public init(id: UUID, name: String = "", position: Int64, matchesAny: Bool = false, conditions: [RuleCondition],
                actions: [RuleAction]) {
        self.id = id
        self.name = name
        self.position = position
        self.matchesAny = matchesAny
        self.conditions = conditions
        self.actions = actions
    }

    /// How a person sees it named: its name in quotes, or the first 8 characters of its id.
    public var label: String { name.isEmpty ? String(UUIDText.lowercased(id).prefix(8)) : DisplayText.quoted(name) }

    /// The rules in the order they run: by position, then by id, so that two rules given one position on two
    /// machines at once run in the same order everywhere.
    public static func ordered(_ rules: [ImportRule]) -> [ImportRule] {
        rules.sorted { ($0.position, UUIDText.lowercased($0.id)) < ($1.position, UUIDText.lowercased($1.id)) }
    }

    /// The position of a rule added after `last` (the last rule's position, `nil` for the first rule).
    public static func position(after last: Int64?) -> Int64 {
        guard let last else { return positionGap }
        let (sum, overflow) = last.addingReportingOverflow(positionGap)
        return overflow ? Int64.max : sum  // past 2^31 rules appended: ties, ordered by id until a move spaces them
    }

    /// A position strictly between `before` (`nil`: the start) and `after`, or `nil` when they are adjacent
    /// integers (then the rules must be spaced again).
    public static func position(between before: Int64?, and after: Int64) -> Int64? {
        guard let before else {
            let (front, overflow) = after.subtractingReportingOverflow(positionGap)
            return overflow ? nil : front
        }
        guard after > before, after - before >= 2 else { return nil }
        return before + (after - before) / 2
    }

    /// The rule as record fields (``LedgerDataValidator/importRule(id:fields:)`` reads them back).
    public var fields: LedgerDataFields {
        var fields: LedgerDataFields = [
            "position": .integer(position), "match": .text(matchesAny ? "any" : "all"),
            "conditions": .list(conditions.map { .object($0.fields) }), "actions": .list(actions.map { .object($0.fields) }),
        ]
        if !name.isEmpty { fields["name"] = .text(name) }
        return fields
    }
}

/// What a rule's condition reads from an expense.
public enum RuleField: String, Sendable, Hashable, CaseIterable {
    /// The bank's original text: the note as the import read it, before any rule changed it (the note of an
    /// existing expense for `rule apply`).
    case text
    case note
    case category
    /// The amount written as `12.50` (without its currency) for a regular expression; a decimal for `=`.
    case amount
}

/// One condition of a rule.
public enum RuleCondition: Hashable, Sendable {
    /// `--match FIELD~REGEX`: the pattern matches somewhere in the field.
    case matches(RuleField, Pattern)
    /// `--match FIELD=TEXT`: the field equals the text, case folded (``RuleText/sameFolded(_:_:)``); the
    /// amount equals the decimal.
    case equals(RuleField, String)
    /// `--amount-from A --amount-to B`: the amount within the bounds (each inclusive, either may be absent).
    case amount(from: RuleAmount?, to: RuleAmount?)
    /// `--date-from D --date-to D`: the date within the bounds (each inclusive, either may be absent).
    case date(from: CalendarDay?, to: CalendarDay?)

    var fields: LedgerDataFields {
        switch self {
        case .matches(let field, let pattern): ["field": .text(field.rawValue), "regex": .text(pattern.source)]
        case .equals(let field, let text): ["field": .text(field.rawValue), "equals": .text(text)]
        case .amount(let from, let to):
            ["field": .text("amount")].merging([("from", from), ("to", to)].compactMap { key, value in value.map { (key, .text($0.description)) } }) { a, _ in a }
        case .date(let from, let to):
            ["field": .text("date")].merging([("from", from), ("to", to)].compactMap { key, value in value.map { (key, .text($0.description)) } }) { a, _ in a }
        }
    }
}

/// One action of a rule.
public enum RuleAction: Hashable, Sendable {
    /// `--set-category C`.
    case setCategory(String)
    /// `--add-tag T`: kept and synced; applied once expenses have tags.
    case addTag(String)
    /// `--set-note TEXT`.
    case setNote(String)
    /// `--set-paid-by NAME`, kept as the member's id so that a rename changes no rule.
    case setPaidBy(UUID)
    /// `--set-split SPEC`, kept in its canonical text (members by id); never an exact split, which fits one amount.
    case setSplit(SplitSpec)
    /// `--part CATEGORY=AMOUNT`: kept and synced; applied once expenses have parts.
    case part(category: String, amount: RuleAmount)

    /// The action's name on the wire and in messages.
    public var name: String {
        switch self {
        case .setCategory: "setCategory"
        case .addTag: "addTag"
        case .setNote: "setNote"
        case .setPaidBy: "setPaidBy"
        case .setSplit: "setSplit"
        case .part: "part"
        }
    }

    var fields: LedgerDataFields {
        switch self {
        case .setCategory(let text), .addTag(let text), .setNote(let text): ["action": .text(name), "value": .text(text)]
        case .setPaidBy(let member): ["action": .text(name), "value": .text(UUIDText.lowercased(member))]
        case .setSplit(let split): ["action": .text(name), "value": .text(split.text)]
        case .part(let category, let amount): ["action": .text(name), "category": .text(category), "amount": .text(amount.description)]
        }
    }
}
