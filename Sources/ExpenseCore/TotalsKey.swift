/// Which expenses count together in a total: those of one span of time (a day, a month, a period of `stats`), one
/// category and one currency. The one definition of that grouping, for the client and the daemon alike.
///
/// The category is compared by its bytes (``ExactText``): "café" in NFC and in NFD are two keys, as they are two
/// values, and so are "Food" and "food". With `String`'s `==`, the two spellings of "café" would share one total:
/// one spelling's amounts would be counted, or written, under the other's.
///
/// Who keys by it: the client's per-day buckets (`ExpenseBucket`), the PostgreSQL store's `daily_totals` and
/// `monthly_totals` rows, the cells of ``PeriodStatisticsBuilder``; the SQLite store's in-memory totals make their
/// packed cell keys from it and give it back when read (`LiveDayTotals`).
public struct TotalsKey: Hashable, Sendable {
    /// The span as one number: a day as `YYYYMMDD` (``CalendarDay/ordinal``), a month as `YYYYMM`, or a period's
    /// index among a query's spans. Keys are only ever compared with keys of the same kind of span.
    public var span: Int
    /// Compared by its UTF-8 bytes (``ExactText``).
    public var category: String
    /// Never summed across: each currency has totals of its own.
    public var currency: Currency

    /// The key of `span` (see ``span``), `category` and `currency`.
    public init(span: Int, category: String, currency: Currency) {
        self.span = span
        self.category = category
        self.currency = currency
    }

    /// The key of one day's totals.
    public init(day: CalendarDay, category: String, currency: Currency) {
        self.init(span: day.ordinal, category: category, currency: currency)
    }

    /// The key of `expense`'s day, category and currency: where its count and the rest of its amount go; each of
    /// its parts goes under its own category's key (``Expense/categoryShares``).
    public init(_ expense: Expense) {
        self.init(day: expense.date, category: expense.category, currency: expense.currency)
    }

    /// For a day's key, the key of its whole month (`YYYYMM`), same category and currency.
    public var month: TotalsKey {
        TotalsKey(span: span / 100, category: category, currency: currency)
    }

    /// Equal when the spans and currencies are and the categories have the same bytes.
    public static func == (lhs: TotalsKey, rhs: TotalsKey) -> Bool {
        lhs.span == rhs.span && lhs.currency == rhs.currency && ExactText.same(lhs.category, rhs.category)
    }

    /// The hash that goes with ``==(_:_:)``: the category's bytes (``ExactText/hash(_:into:)``).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(span)
        hasher.combine(currency)
        ExactText.hash(category, into: &hasher)
    }
}
