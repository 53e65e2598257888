/// Unvalidated expense input, from a command line, a CSV row, a wire message or a database row.
/// `nil` means the field was not given.
public struct ExpenseDraft: Hashable, Sendable {
    public var id: String?
    /// Minor units; an amount typed by a person is first turned into minor units with ``Money/parse(_:currency:)``.
    public var amount: Int64?
    public var currency: String?
    public var category: String?
    public var date: String?
    public var note: String?

    public init(id: String? = nil, amount: Int64? = nil, currency: String? = nil,
                category: String? = nil, date: String? = nil, note: String? = nil) {
        self.id = id
        self.amount = amount
        self.currency = currency
        self.category = category
        self.date = date
        self.note = note
    }

    /// Equal when every field is, text by its bytes (``ExactText``).
    public static func == (lhs: ExpenseDraft, rhs: ExpenseDraft) -> Bool {
        lhs.amount == rhs.amount && ExactText.same(lhs.id, rhs.id) && ExactText.same(lhs.currency, rhs.currency)
            && ExactText.same(lhs.category, rhs.category) && ExactText.same(lhs.date, rhs.date)
            && ExactText.same(lhs.note, rhs.note)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(amount)
        for text in [id, currency, category, date, note] { ExactText.hash(text, into: &hasher) }
    }

    /// This draft with every field that `changes` gives replacing the one here.
    public func merging(_ changes: ExpenseDraft) -> ExpenseDraft {
        ExpenseDraft(id: changes.id ?? id, amount: changes.amount ?? amount,
                     currency: changes.currency ?? currency, category: changes.category ?? category,
                     date: changes.date ?? date, note: changes.note ?? note)
    }
}
