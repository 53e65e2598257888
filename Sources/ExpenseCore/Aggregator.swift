/// Sums amounts per currency (and per group and currency) with every addition overflow-checked.
///
/// The one aggregator of the project: the CLI totals its local expenses with it, and the daemon sums its
/// stored per-day aggregates with it. An overflow throws ``ValidationError/amountOverflow``; it never traps or wraps.
public struct Aggregator: Sendable {
    public let query: SummaryQuery
    private var totals: [Currency: CurrencyTotal] = [:]
    private var groups: [GroupKey: GroupTotal] = [:]

    /// A group: its key compared by its exact UTF-8 bytes (``ExactText``: Swift's `==` would merge canonically
    /// equivalent spellings such as "café" in NFC and NFD) and its currency.
    private struct GroupKey: Hashable {
        var key: String
        var currency: Currency

        static func == (lhs: GroupKey, rhs: GroupKey) -> Bool {
            lhs.currency == rhs.currency && ExactText.same(lhs.key, rhs.key)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(currency)
            ExactText.hash(key, into: &hasher)
        }
    }

    public init(query: SummaryQuery = SummaryQuery()) {
        self.query = query
    }

    /// Adds one expense if the query covers it: each of its parts in its own category, the remainder in its
    /// category (``ExpenseCore/Expense/forEachCategoryShare(_:)``), so the totals per currency are its whole amount.
    public mutating func add(_ expense: Expense) throws {
        try expense.forEachCategoryShare { category, amount, count in
            try add(amount: amount, count: count, currency: expense.currency, category: category, date: expense.date)
        }
    }

    /// Adds a pre-summed bucket (`count` expenses of one currency, category and day totalling `amount`),
    /// if the query covers it.
    public mutating func add(amount: Int64, count: Int64, currency: Currency, category: String, date: CalendarDay) throws {
        guard query.matches(date: date, category: category) else { return }
        var total = totals[currency] ?? CurrencyTotal(currency: currency, amount: 0, count: 0)
        total.amount = try Self.checkedSum(total.amount, amount)
        total.count = try Self.checkedSum(total.count, count)
        totals[currency] = total
        if let key = query.groupKey(date: date, category: category) {
            let groupKey = GroupKey(key: key, currency: currency)
            var group = groups[groupKey] ?? GroupTotal(key: key, currency: currency, amount: 0, count: 0)
            group.amount = try Self.checkedSum(group.amount, amount)
            group.count = try Self.checkedSum(group.count, count)
            groups[groupKey] = group
        }
    }

    /// The summary of everything added so far.
    public var summary: Summary {
        Summary(
            totals: totals.values.sorted { $0.currency < $1.currency },
            groups: groups.values.sorted { lhs, rhs in
                lhs.key.utf8.elementsEqual(rhs.key.utf8)
                    ? lhs.currency < rhs.currency
                    : lhs.key.utf8.lexicographicallyPrecedes(rhs.key.utf8)
            })
    }

    /// Totals `expenses` in one pass.
    /// - Throws: ``ValidationError/amountOverflow``.
    public static func summarize<S: Sequence>(_ expenses: S, query: SummaryQuery = SummaryQuery()) throws -> Summary
    where S.Element == Expense {
        var aggregator = Aggregator(query: query)
        for expense in expenses { try aggregator.add(expense) }
        return aggregator.summary
    }

    /// `a + b`, or ``ValidationError/amountOverflow``.
    public static func checkedSum(_ a: Int64, _ b: Int64) throws -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard !overflow else { throw ValidationError.amountOverflow }
        return sum
    }
}
