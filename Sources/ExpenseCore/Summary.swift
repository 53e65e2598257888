import FoundationEssentials

/// How a summary groups expenses besides by currency.
public enum SummaryGrouping: String, Sendable, Hashable, CaseIterable {
    case none, category, month
}

/// Which expenses a summary covers. `from` and `to` are inclusive; `category` matches exactly after trimming.
public struct SummaryQuery: Hashable, Sendable {
    public var from: CalendarDay?
    public var to: CalendarDay?
    public var category: String?
    public var groupBy: SummaryGrouping
    /// Only the expenses that carry every one of these tags (``ExpenseTags/containsAll(_:_:)``); empty: all.
    public var tags: [String]

    public init(from: CalendarDay? = nil, to: CalendarDay? = nil, category: String? = nil, groupBy: SummaryGrouping = .none,
                tags: [String] = []) {
        self.from = from
        self.to = to
        self.category = category
        self.groupBy = groupBy
        self.tags = ExpenseTags.normalized(tags)
    }

    /// Equal when every member is, the category by its bytes (``ExactText``): two such queries cover the same expenses.
    public static func == (lhs: SummaryQuery, rhs: SummaryQuery) -> Bool {
        lhs.from == rhs.from && lhs.to == rhs.to && lhs.groupBy == rhs.groupBy && ExactText.same(lhs.category, rhs.category)
            && ExpenseTags.same(lhs.tags, rhs.tags)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(from)
        hasher.combine(to)
        hasher.combine(groupBy)
        ExactText.hash(category, into: &hasher)
        for tag in tags { ExactText.hash(tag, into: &hasher) }
    }

    /// Whether an expense with this date and category is covered.
    public func matches(date: CalendarDay, category: String) -> Bool {
        if let from, date < from { return false }
        if let to, date > to { return false }
        // Exact text (UTF-8 bytes), not Swift's canonical equivalence: categories are stored exactly as typed.
        if let wanted = self.category, !ExactText.same(wanted.trimmingWhitespace, category) { return false }
        return true
    }

    /// The group an expense falls in, or `nil` for `groupBy: none`.
    public func groupKey(date: CalendarDay, category: String) -> String? {
        switch groupBy {
        case .none: nil
        case .category: category
        case .month: date.monthKey
        }
    }
}

/// The sum and count of one currency, overall or within a group.
public struct CurrencyTotal: Hashable, Sendable {
    public var currency: Currency
    public var amount: Int64
    public var count: Int64

    public init(currency: Currency, amount: Int64, count: Int64) {
        self.currency = currency
        self.amount = amount
        self.count = count
    }
}

/// The sum and count of one currency within one group (a category or a `YYYY-MM` month).
public struct GroupTotal: Hashable, Sendable {
    public var key: String
    public var currency: Currency
    public var amount: Int64
    public var count: Int64

    public init(key: String, currency: Currency, amount: Int64, count: Int64) {
        self.key = key
        self.currency = currency
        self.amount = amount
        self.count = count
    }

    /// Equal when every member is, the key by its bytes (``ExactText``), as groups are formed.
    public static func == (lhs: GroupTotal, rhs: GroupTotal) -> Bool {
        ExactText.same(lhs.key, rhs.key) && lhs.currency == rhs.currency && lhs.amount == rhs.amount && lhs.count == rhs.count
    }

    public func hash(into hasher: inout Hasher) {
        ExactText.hash(key, into: &hasher)
        hasher.combine(currency)
        hasher.combine(amount)
        hasher.combine(count)
    }
}

/// Totals per currency and, when grouped, per group and currency. Currencies are never added together.
public struct Summary: Hashable, Sendable {
    /// Sorted by currency code.
    public var totals: [CurrencyTotal]
    /// Sorted by key (its UTF-8 bytes), then currency code; empty for `groupBy: none`.
    public var groups: [GroupTotal]

    public init(totals: [CurrencyTotal], groups: [GroupTotal]) {
        self.totals = totals
        self.groups = groups
    }
}

