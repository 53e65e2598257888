import ExpenseCore

/// One row of the PostgreSQL store's `daily_totals` or `monthly_totals` (``PostgresLedgerStore``): the category
/// by its bytes (``ExpenseCore/ExactText``), as the table's key compares it. With `String`'s `==`, "café" in NFC
/// and in NFD would share one delta and write it to one spelling's row, so the other spelling's totals would
/// drift from its records.
struct AggregateKey: Hashable {
    var day: Int
    var category: String
    var currency: String

    static func == (lhs: AggregateKey, rhs: AggregateKey) -> Bool {
        lhs.day == rhs.day && lhs.currency == rhs.currency && ExactText.same(lhs.category, rhs.category)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(day)
        hasher.combine(currency)
        ExactText.hash(category, into: &hasher)
    }

    /// What a transaction adds to one row.
    struct Delta {
        var amount: Int64 = 0
        var count: Int64 = 0
    }
}
