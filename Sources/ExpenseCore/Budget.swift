import FoundationEssentials

/// How long a budget period is.
public enum BudgetPeriodLength: String, Sendable, Hashable, CaseIterable {
    case week, month, quarter, year

    /// Months per period (`nil` for a week, which is 7 days).
    var months: Int? {
        switch self {
        case .week: nil
        case .month: 1
        case .quarter: 3
        case .year: 12
        }
    }
}

/// What a period's `left` does to the next period.
public enum BudgetRollover: String, Sendable, Hashable, CaseIterable {
    /// Nothing carries.
    case none
    /// A positive `left` carries; an overspend does not.
    case positive
    /// `left` carries, positive or negative.
    case full
}

/// One amount of a budget's history: from the period containing `from` onwards (until a later change).
public struct BudgetAmount: Hashable, Sendable {
    public var from: CalendarDay
    /// Minor units of the budget's currency, 1 … 9007199254740991 (an expense amount's range).
    public var amount: Int64

    public init(from: CalendarDay, amount: Int64) {
        self.from = from
        self.amount = amount
    }
}

/// What a budget counts: the expenses of one category (or the part of an expense in it), or every expense
/// carrying one tag, whole (a tag is on the expense, never on one of its parts).
public enum BudgetTarget: Hashable, Sendable {
    /// A category, validated (trimmed; compared as bytes, like ``ExactText``).
    case category(String)
    /// A tag (``ExpenseTags/problem(with:)`` finds nothing wrong with it; compared as bytes).
    case tag(String)

    /// How a person sees it: the category itself, or `tag:TAG`.
    public var name: String {
        switch self {
        case .category(let category): category
        case .tag(let tag): "tag:" + tag
        }
    }

    /// The category, `nil` for a tag budget.
    public var category: String? {
        if case .category(let category) = self { return category }
        return nil
    }

    /// The tag, `nil` for a category budget.
    public var tag: String? {
        if case .tag(let tag) = self { return tag }
        return nil
    }
}

/// A budget for one category, or one tag, in one currency: one per (target, currency), whose id is derived from
/// them (``id(target:currency:)``), so two machines setting it offline make one record.
///
/// The amount is a history (``amounts``): a change applies from the period containing its `from` day
/// onwards, and earlier periods keep the amount they had.
public struct Budget: Hashable, Sendable {
    public var target: BudgetTarget
    public var currency: Currency
    public var period: BudgetPeriodLength
    /// The first day of the first period, which anchors every period (a 29th–31st is clamped to shorter months).
    public var start: CalendarDay
    public var rollover: BudgetRollover
    /// In increasing `from` order, never empty; the first applies from the first period.
    public var amounts: [BudgetAmount]

    public init(target: BudgetTarget, currency: Currency, period: BudgetPeriodLength, start: CalendarDay,
                rollover: BudgetRollover, amounts: [BudgetAmount]) {
        self.target = target
        self.currency = currency
        self.period = period
        self.start = start
        self.rollover = rollover
        self.amounts = amounts
    }

    /// A category's budget.
    public init(category: String, currency: Currency, period: BudgetPeriodLength, start: CalendarDay,
                rollover: BudgetRollover, amounts: [BudgetAmount]) {
        self.init(target: .category(category), currency: currency, period: period, start: start, rollover: rollover,
                  amounts: amounts)
    }

    /// The namespace of budget ids (a random UUID chosen once for this program).
    public static let namespace = UUID(uuid: (0x5b, 0x0e, 0x7c, 0x42, 0x9d, 0x31, 0x4f, 0x8a,
                                              0xa1, 0x6c, 0x2e, 0x93, 0x0b, 0x57, 0xd4, 0x18))

    /// A category budget's id: a name-based UUID of its category (validated, so trimmed; compared as bytes, like
    /// ``ExactText``) and its currency code.
    public static func id(category: String, currency: Currency) -> UUID {
        id(target: .category(category), currency: currency)
    }

    /// The id of the budget of `target` in `currency`. A category's keeps the two-part name it always had; a tag's
    /// name has three parts (`tag`, the tag, the code), and since no category contains the NUL that ends each part,
    /// a tag budget never gets the id of a category budget, whatever the texts.
    public static func id(target: BudgetTarget, currency: Currency) -> UUID {
        let parts: [String]
        switch target {
        case .category(let category): parts = [category, currency.code]
        case .tag(let tag): parts = ["tag", tag, currency.code]
        }
        return NameBasedUUID.make(namespace: namespace, name: NameBasedUUID.name(parts))
    }

    public var id: UUID { Self.id(target: target, currency: currency) }

    /// The amount budgeted for the period ending `periodEnd`: the latest change
    /// whose `from` is at or before the period's end (so a change applies from the period containing it).
    public func amount(periodEnd: CalendarDay) -> Int64 {
        var amount = amounts.first?.amount ?? 0
        for change in amounts where change.from <= periodEnd { amount = change.amount }
        return amount
    }

    /// The history with `amount` applying from the period containing `from` onwards: changes inside or after
    /// that period are replaced (the new amount is what the person wants from then on).
    public func settingAmount(_ amount: Int64, from: CalendarDay) -> [BudgetAmount] {
        let periodStart = BudgetPeriods(self).period(containing: from)?.start ?? start
        var kept = amounts.filter { $0.from < periodStart }
        kept.append(BudgetAmount(from: periodStart, amount: amount))
        return kept
    }
}

extension Budget {
    /// The budget as record fields (``LedgerDataValidator/budget(id:fields:)`` reads them back).
    public var fields: LedgerDataFields {
        var fields: LedgerDataFields = [
            "currency": .text(currency.code), "period": .text(period.rawValue), "start": .text(start.description),
            "rollover": .text(rollover.rawValue),
            "amounts": .list(amounts.map { .object(["from": .text($0.from.description), "amount": .integer($0.amount)]) }),
        ]
        switch target {
        case .category(let category): fields["category"] = .text(category)
        case .tag(let tag): fields["tag"] = .text(tag)
        }
        return fields
    }
}
