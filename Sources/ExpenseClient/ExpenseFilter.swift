import ExpenseCore

/// Which live expenses a listing returns. `from` and `to` are inclusive; `category` matches the stored
/// (trimmed) category, or a part's (an expense with a part in it is listed, as totals count the part there),
/// exactly: by its bytes (``ExpenseCore/ExactText``), in every store alike. `tags` (`--tag`):
/// only expenses that have every one of them (by its bytes); the stores read by the other members, and
/// ``LocalLedger`` keeps the expenses with the tags (``hasTags(_:)``).
package struct ExpenseFilter: Hashable, Sendable {
    package var from: CalendarDay?
    package var to: CalendarDay?
    package var category: String?
    /// Tags an expense must all have; empty: any.
    package var tags: [String]

    package init(from: CalendarDay? = nil, to: CalendarDay? = nil, category: String? = nil, tags: [String] = []) {
        self.from = from
        self.to = to
        self.category = category.map { $0.trimmingWhitespace }
        self.tags = ExpenseTags.normalized(tags)
    }

    /// Whether `expense` has every tag of ``tags``.
    package func hasTags(_ expense: Expense) -> Bool {
        ExpenseTags.containsAll(expense.tags, tags)
    }

    /// Equal when every member is, the category by its bytes: two such filters pass the same expenses.
    package static func == (lhs: ExpenseFilter, rhs: ExpenseFilter) -> Bool {
        lhs.from == rhs.from && lhs.to == rhs.to && ExactText.same(lhs.category, rhs.category)
            && ExpenseTags.same(lhs.tags, rhs.tags)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(from)
        hasher.combine(to)
        ExactText.hash(category, into: &hasher)
        for tag in tags { ExactText.hash(tag, into: &hasher) }
    }

    /// Whether `expense` passes the filter (used by the stores that filter in memory).
    package func matches(_ expense: Expense) -> Bool {
        if let from, expense.date < from { return false }
        if let to, expense.date > to { return false }
        return hasCategory(expense) && hasTags(expense)
    }

    /// Whether `expense` is of the filter's category or has a part in it (true without a category).
    package func hasCategory(_ expense: Expense) -> Bool {
        guard let category else { return true }
        return ExactText.same(expense.category, category)
            || (expense.parts?.parts.contains { ExactText.same($0.category, category) } ?? false)
    }
}
