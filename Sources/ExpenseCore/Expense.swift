import FoundationEssentials

/// One validated expense. Only ``ExpenseValidator/validate(_:)`` makes one from outside input,
/// so holding an `Expense` means every rule in ``ExpenseRules`` holds.
public struct Expense: Hashable, Sendable, Identifiable {
    /// Made by the client that recorded the expense; written in lower case.
    public let id: UUID
    /// Whole minor units of ``currency``, 1 … 2^53−1.
    public let amount: Int64
    public let currency: Currency
    /// Trimmed, 1 to 64 characters, no control characters.
    public let category: String
    public let date: CalendarDay
    /// 0 to 300 characters; tab and newline allowed, no other control characters.
    public let note: String
    /// The member who paid; `nil`: no one is named (an expense of the ledger's own, not shared).
    public var paidBy: UUID? { extras?.fields.paidBy }
    /// How the amount is shared among members, its exact amounts matching ``amount``; `nil`: not shared.
    public var split: SplitSpec? { extras?.fields.split }
    /// The amount actually charged in the ledger's currency (`--paid`), in its minor units, 1 … 2^53−1; `nil`:
    /// none. It overrides the rate of a conversion into the ledger's currency (``CurrencyConverter``).
    public var charged: Int64? { extras?.fields.charged }
    /// Its tags (``ExpenseTags``): at most 16, sorted by their bytes, each once; empty: none.
    public var tags: [String] { extras?.fields.tags ?? [] }
    /// The parts of the amount in other categories (`--part`), adding up to less than ``amount``: the expense's
    /// own ``category`` takes the remainder (``ExpenseParts``); `nil`: all of it is ``category``'s.
    public var parts: ExpenseParts? { extras?.fields.parts }
    /// The row's original text as an import read it (the bank's description), kept as the bank gave it whatever
    /// the note becomes; the same text rules as a note. Empty: none (made by `add`, or imported before it was kept).
    public var source: String { extras?.fields.source ?? "" }

    /// The optional fields, behind one reference; `nil` when the expense uses none of them, as most do. An expense
    /// is copied wherever a mutation, a record or an answer carries one: held inline, the six fields doubled its
    /// size and the retains of each copy (a 500-mutation push copied about 2.8k more bytes per mutation).
    private let extras: Extras?

    /// Made by ``ExpenseValidator`` after every check has passed. `package` so that a store re-reading rows it
    /// validated before writing (in a database this program owns) need not validate each again; anything read
    /// from outside input goes through ``ExpenseValidator/validate(_:)``.
    package init(id: UUID, amount: Int64, currency: Currency, category: String, date: CalendarDay, note: String,
                 paidBy: UUID? = nil, split: SplitSpec? = nil, charged: Int64? = nil, tags: [String] = [],
                 parts: ExpenseParts? = nil, source: String = "") {
        self.id = id
        self.amount = amount
        self.currency = currency
        self.category = category
        self.date = date
        self.note = note
        if paidBy == nil && split == nil && charged == nil && tags.isEmpty && parts == nil && source.isEmpty {
            extras = nil
        } else {
            extras = Extras(.init(paidBy: paidBy, split: split, charged: charged, tags: tags, parts: parts, source: source))
        }
    }

    /// Whether any optional field is set (``ExpenseExtras``): most expenses use none.
    package var hasOptionalFields: Bool { extras != nil }

    /// The payer as it is stored and sent: the member's lower-case id, empty for none.
    public var paidByText: String { paidBy.map(UUIDText.lowercased) ?? "" }

    /// The split as it is stored and sent: its canonical text (``SplitSpec/text``), empty for none.
    public var splitText: String { split?.text ?? "" }

    /// The amount charged as it is stored and sent: its minor units, 0 for none.
    public var chargedValue: Int64 { charged ?? 0 }

    /// The tags as a CSV cell and a database column hold them: joined by commas, empty for none.
    public var tagsText: String { ExpenseTags.text(tags) }

    /// The parts as they are stored and sent: their text (``ExpenseParts/text``), empty for none.
    public var partsText: String { parts?.text ?? "" }

    /// Each member's share in minor units (``SplitSpec/shares(amount:currency:expenseId:)``); empty when not shared.
    public var shares: [SplitSpec.Share] {
        (try? split?.shares(amount: amount, currency: currency, expenseId: id)) ?? []
    }

    /// The id as it is written everywhere: lower-case UUID text.
    public var idString: String { UUIDText.lowercased(id) }

    /// Equal when every field is, text by its bytes (``ExactText``): "café" in NFC and in NFD are two values.
    public static func == (lhs: Expense, rhs: Expense) -> Bool {
        lhs.id == rhs.id && lhs.amount == rhs.amount && lhs.currency == rhs.currency && lhs.date == rhs.date
            && ExactText.same(lhs.category, rhs.category) && ExactText.same(lhs.note, rhs.note)
            && lhs.paidBy == rhs.paidBy && lhs.split == rhs.split && lhs.charged == rhs.charged
            && ExpenseTags.same(lhs.tags, rhs.tags)
            && lhs.parts == rhs.parts && ExactText.same(lhs.source, rhs.source)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(amount)
        hasher.combine(currency)
        hasher.combine(date)
        ExactText.hash(category, into: &hasher)
        ExactText.hash(note, into: &hasher)
        hasher.combine(paidBy)
        hasher.combine(split)
        hasher.combine(charged)
        for tag in tags { ExactText.hash(tag, into: &hasher) }
        hasher.combine(parts)
        ExactText.hash(source, into: &hasher)
    }

    /// This expense as `member`'s own spending (`--member`): their share of a shared expense, the whole of one
    /// they paid that nobody shares; `nil` when none of it is theirs (or their share is 0). The amount charged
    /// is divided as a converted amount is (``SplitSpec/convertedShares(amount:expenseId:)``): their part of it
    /// (none when that part is 0, so the rate converts their share). Their share is divided among the
    /// expense's categories as the whole is (``ExpenseParts/divided(_:whole:expenseId:)``), so their spending
    /// by category adds up to their share exactly.
    public func part(of member: UUID) -> Expense? {
        let amount: Int64
        var charged = self.charged
        if let split {
            guard let share = shares.first(where: { $0.member == member }), share.amount > 0 else { return nil }
            amount = share.amount
            charged = self.charged.flatMap { whole in
                (try? split.convertedShares(amount: whole, expenseId: id))?.first { $0.member == member }?.amount
            }.flatMap { $0 > 0 ? $0 : nil }
        } else {
            guard paidBy == member else { return nil }
            amount = self.amount
        }
        return Expense(id: id, amount: amount, currency: currency, category: category, date: date, note: note, paidBy: paidBy,
                       split: split, charged: charged, tags: tags, parts: dividedParts(amount), source: source)
    }

    /// This expense with its amount in another currency (a converted view, ``CurrencyConverter``), every other
    /// field kept but the payer, split and amount charged, which no longer match a converted amount (an exact
    /// split's amounts are in the old currency; the amount charged was the conversion's). Its parts are the new
    /// amount divided in proportion to the old parts and remainder (``ExpenseParts/divided(_:whole:expenseId:)``),
    /// so its categories add up to the converted amount exactly.
    public func converted(amount newAmount: Int64, currency newCurrency: Currency) -> Expense {
        Expense(id: id, amount: newAmount, currency: newCurrency, category: category, date: date, note: note, paidBy: nil,
                split: nil, tags: tags, parts: dividedParts(newAmount), source: source)
    }

    /// The parts of `newAmount` (a converted amount, a member's share) divided as ``amount`` is; a part that
    /// comes to 0 is left out, and the remainder may be 0 (these parts are for totals, never validated nor
    /// stored). `nil` when there are no parts, or `newAmount` is out of range.
    private func dividedParts(_ newAmount: Int64) -> ExpenseParts? {
        guard let parts else { return nil }
        if newAmount == amount { return parts }
        guard let amounts = parts.divided(newAmount, whole: amount, expenseId: id) else { return nil }
        let kept = zip(parts.parts, amounts.dropFirst()).filter { $1 > 0 }.map { ExpenseParts.Part(category: $0.category, amount: $1) }
        return kept.isEmpty ? nil : ExpenseParts(unchecked: kept)
    }

    /// This expense's values under another id (an import's id derived from them).
    public func with(id newId: UUID) -> Expense {
        Expense(id: newId, amount: amount, currency: currency, category: category, date: date, note: note, paidBy: paidBy,
                split: split, charged: charged, tags: tags, parts: parts, source: source)
    }

    /// This expense with other tags, already checked (a merge of two checked sets, sorted and at most
    /// ``ExpenseTags/maximumCount``).
    package func with(tags newTags: [String]) -> Expense {
        Expense(id: id, amount: amount, currency: currency, category: category, date: date, note: note, paidBy: paidBy,
                split: split, charged: charged, tags: newTags, parts: parts, source: source)
    }

    /// A draft holding these values as values (never written out as text to be parsed back), to change some of
    /// them and validate again.
    public var draft: ExpenseDraft {
        ExpenseDraft(id: .value(id), amount: amount, currency: .value(currency), category: category,
                     date: .value(date), note: note, paidBy: paidByText, split: splitText, charged: chargedValue, tags: tags,
                     parts: partsText, source: source)
    }
}

/// An expense's optional fields (``Expense/paidBy`` … ``Expense/source``), shared by its copies: immutable.
private final class Extras: Sendable {
    struct Fields: Sendable {  // its memberwise init is the one this class is made with
        let paidBy: UUID?
        let split: SplitSpec?
        let charged: Int64?
        let tags: [String]
        let parts: ExpenseParts?
        let source: String
    }

    let fields: Fields

    init(_ fields: Fields) { self.fields = fields }
}
