/// Every tag in use among the expenses added, with how many expenses have it and their totals per currency
/// (`expense tag list`); each addition overflow-checked by ``Aggregator``.
public struct TagTotals: Sendable {
    /// One tag's line.
    public struct Tag: Hashable, Sendable {
        /// The tag as stored.
        public var tag: String
        /// How many expenses have it.
        public var count: Int64
        /// The totals of those expenses per currency, sorted by currency code.
        public var totals: [CurrencyTotal]
    }

    /// A tag compared and hashed by its bytes (``ExactText``), never by canonical equivalence.
    private struct Key: Hashable {
        var tag: String
        static func == (lhs: Key, rhs: Key) -> Bool { ExactText.same(lhs.tag, rhs.tag) }
        func hash(into hasher: inout Hasher) { ExactText.hash(tag, into: &hasher) }
    }

    private var aggregators: [Key: Aggregator] = [:]

    public init() {}

    /// Counts `expense` under each of its tags.
    /// - Throws: ``ValidationError/amountOverflow`` when a tag's total of a currency would pass `Int64.max`.
    public mutating func add(_ expense: Expense) throws {
        for tag in expense.tags { try aggregators[Key(tag: tag), default: Aggregator()].add(expense) }
    }

    /// Every tag seen, sorted by its bytes.
    public var tags: [Tag] {
        aggregators.map { key, aggregator in
            let totals = aggregator.summary.totals
            return Tag(tag: key.tag, count: totals.reduce(0) { $0 + $1.count }, totals: totals)
        }.sorted { ExpenseTags.precedes($0.tag, $1.tag) }
    }
}
