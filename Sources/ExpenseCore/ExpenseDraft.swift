import FoundationEssentials

/// Unvalidated expense input, from a command line, a CSV row, a wire message or a database row.
/// `nil` means the field was not given.
///
/// The id, the currency and the date hold either a value already known (``DraftInput/value(_:)``: a stored
/// expense's own, or one a decoder read straight from bytes) or the text as it was given
/// (``DraftInput/text(_:)``), which ``ExpenseValidator`` parses in its place in the order of the checks. So a
/// stored expense being edited is never written out as text only to be parsed back, and a wrong field in the
/// input still gets the same error, in the same order, as before it was parsed.
public struct ExpenseDraft: Hashable, Sendable {
    public var id: DraftInput<UUID>?
    /// Minor units; an amount typed by a person is first turned into minor units with ``Money/parse(_:currency:)``.
    public var amount: Int64?
    public var currency: DraftInput<Currency>?
    public var category: String?
    public var date: DraftInput<CalendarDay>?
    public var note: String?
    /// The payer's member id as text; empty: no payer (a creation that leaves it out has none).
    public var paidBy: String?
    /// The split's canonical text (``SplitSpec/text``); empty: not shared (a creation that leaves it out is not).
    public var split: String?
    /// The amount charged in minor units of the ledger's currency; 0: none (a creation that leaves it out has none).
    public var charged: Int64?
    /// The tags as given (``ExpenseValidator`` checks, sorts and de-duplicates them); empty: none (a creation that
    /// leaves them out has none).
    public var tags: [String]?
    /// The parts' text (``ExpenseParts/text``); empty: none (a creation that leaves it out has none).
    public var parts: String?
    /// The row's original text as an import read it; empty: none (a creation that leaves it out has none).
    public var source: String?

    /// No field given.
    public init() {}

    /// A draft of text as it was given.
    public init(id: String? = nil, amount: Int64? = nil, currency: String? = nil,
                category: String? = nil, date: String? = nil, note: String? = nil, paidBy: String? = nil, split: String? = nil,
                charged: Int64? = nil, tags: [String]? = nil, parts: String? = nil, source: String? = nil) {
        self.init(id: id.map(DraftInput.text), amount: amount, currency: currency.map(DraftInput.text),
                  category: category, date: date.map(DraftInput.text), note: note, paidBy: paidBy, split: split, charged: charged,
                  tags: tags, parts: parts, source: source)
    }

    /// A draft of inputs, each a value or text. Inlinable: a pull page makes one per record, and built in place
    /// it costs a fraction of the call (which copied each of the twelve fields in and out).
    @inlinable
    public init(id: DraftInput<UUID>?, amount: Int64? = nil, currency: DraftInput<Currency>?,
                category: String? = nil, date: DraftInput<CalendarDay>?, note: String? = nil, paidBy: String? = nil,
                split: String? = nil, charged: Int64? = nil, tags: [String]? = nil, parts: String? = nil,
                source: String? = nil) {
        self.id = id
        self.amount = amount
        self.currency = currency
        self.category = category
        self.date = date
        self.note = note
        self.paidBy = paidBy
        self.split = split
        self.charged = charged
        self.tags = tags
        self.parts = parts
        self.source = source
    }

    /// Equal when every field is, text by its bytes (``ExactText``) and a value by its text
    /// (``DraftInput/text``): the draft of an expense equals the draft of its fields typed as text.
    public static func == (lhs: ExpenseDraft, rhs: ExpenseDraft) -> Bool {
        guard lhs.amount == rhs.amount, lhs.charged == rhs.charged, ExactText.same(lhs.id?.text, rhs.id?.text),
              ExactText.same(lhs.currency?.text, rhs.currency?.text), ExactText.same(lhs.category, rhs.category),
              ExactText.same(lhs.date?.text, rhs.date?.text), ExactText.same(lhs.note, rhs.note) else { return false }
        guard ExactText.same(lhs.paidBy, rhs.paidBy) && ExactText.same(lhs.split, rhs.split) && ExactText.same(lhs.parts, rhs.parts)
                && ExactText.same(lhs.source, rhs.source) else {
            return false
        }
        switch (lhs.tags, rhs.tags) {
        case (nil, nil): return true
        case let (a?, b?): return a.count == b.count && zip(a, b).allSatisfy { ExactText.same($0, $1) }
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(amount)
        hasher.combine(charged)
        for text in [id?.text, currency?.text, category, date?.text, note, paidBy, split, parts, source] { ExactText.hash(text, into: &hasher) }
        hasher.combine(tags?.count)
        for tag in tags ?? [] { ExactText.hash(tag, into: &hasher) }
    }

    /// Fills in what a creation may leave out: `currency` (the ledger's) when it gives none, an empty note. (No
    /// payer, no split, no amount charged, no tags, no parts and no original text need nothing: absent, the validator reads them as
    /// none.) The
    /// daemon applies it to every create it receives, and `add` to what it was given, so a field that a creation
    /// may leave out gets its default here, once. In place: the daemon runs it for every create of a push.
    public mutating func completeCreation(currency ledgerCurrency: Currency) {
        if currency == nil { currency = .value(ledgerCurrency) }
        if note == nil { note = "" }
    }

    /// This draft with every field that `changes` gives replacing the one here.
    public func merging(_ changes: ExpenseDraft) -> ExpenseDraft {
        var merged = self
        if let id = changes.id { merged.id = id }
        if let amount = changes.amount { merged.amount = amount }
        if let currency = changes.currency { merged.currency = currency }
        if let category = changes.category { merged.category = category }
        if let date = changes.date { merged.date = date }
        if let note = changes.note { merged.note = note }
        if let paidBy = changes.paidBy { merged.paidBy = paidBy }
        if let split = changes.split { merged.split = split }
        if let charged = changes.charged { merged.charged = charged }
        if let tags = changes.tags { merged.tags = tags }
        if let parts = changes.parts { merged.parts = parts }
        if let source = changes.source { merged.source = source }
        return merged
    }
}

/// One typed field of an ``ExpenseDraft``: a value already known, or text still to be validated.
public enum DraftInput<Value: DraftValue>: Hashable, Sendable, ExpressibleByStringLiteral {
    /// A value known to be valid (read from a stored expense, or decoded and checked already).
    case value(Value)
    /// Text as it was given, checked by ``ExpenseValidator`` in its turn.
    case text(String)

    public init(stringLiteral text: String) { self = .text(text) }

    /// The text of the input: the given text, or the value's own (``DraftValue/draftText``).
    public var text: String {
        switch self {
        case .value(let value): value.draftText
        case .text(let text): text
        }
    }

    /// The value, parsing the text with `parse` (which throws the field's ``ValidationError``).
    @inline(__always)
    public func resolved(_ parse: (String) throws -> Value) throws -> Value {
        switch self {
        case .value(let value): value
        case .text(let text): try parse(text)
        }
    }

    /// Equal when the texts are, by their bytes.
    public static func == (lhs: DraftInput, rhs: DraftInput) -> Bool { ExactText.same(lhs.text, rhs.text) }
    public func hash(into hasher: inout Hasher) { ExactText.hash(text, into: &hasher) }
}

/// A value a draft can hold as itself, with the text it is written as.
public protocol DraftValue: Hashable, Sendable {
    /// The value as the text it would be given as (and is written as everywhere).
    var draftText: String { get }
}

extension UUID: DraftValue {
    /// Lower-case UUID text.
    public var draftText: String { UUIDText.lowercased(self) }
}

extension Currency: DraftValue {
    /// The ISO 4217 code.
    public var draftText: String { code }
}

extension CalendarDay: DraftValue {
    /// `YYYY-MM-DD`.
    public var draftText: String { description }
}
