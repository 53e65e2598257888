import ExpenseCore

/// The `fields` object of a `put`, member by member: the five expense fields (``ExpenseFields/names``) each in
/// its own slot, every other member (a budget's, rule's or setting's, or an unknown one) in ``others``.
///
/// The daemon's push decode fills the slots straight from the line (``PushLineReader``) and the rules read them
/// (``ExpenseFields``), so an expense's mutation builds and hashes no dictionary.
/// It holds exactly what the object held: ``dictionary`` is that object, and two values are equal exactly when
/// their dictionaries are.
public struct MutationFields: Hashable, Sendable {
    public var amount: JSONValue?
    public var currency: JSONValue?
    public var category: JSONValue?
    public var date: JSONValue?
    public var note: JSONValue?
    /// Every member that is not one of the five expense fields, by name.
    public var others: [String: JSONValue] = [:]

    /// No member.
    public init() {}

    /// The members of a `fields` object read as a dictionary.
    public init(_ dictionary: [String: JSONValue]) {
        for (name, value) in dictionary { self[name] = value }
    }

    /// The member `name`, in its slot or among ``others``.
    public subscript(name: String) -> JSONValue? {
        get {
            switch Slot(name) {
            case .amount: amount
            case .currency: currency
            case .category: category
            case .date: date
            case .note: note
            case nil: others[name]
            }
        }
        set {
            switch Slot(name) {
            case .amount: amount = newValue
            case .currency: currency = newValue
            case .category: category = newValue
            case .date: date = newValue
            case .note: note = newValue
            case nil: others[name] = newValue
            }
        }
    }

    /// The slot a member name has. Compared with `==` one by one: a `switch` over string literals goes through
    /// the standard library's string-switch table, which cost a mutation's decode about 2k instructions.
    private enum Slot {
        case amount, currency, category, date, note

        init?(_ name: String) {
            if name == "amount" { self = .amount
            } else if name == "currency" { self = .currency
            } else if name == "category" { self = .category
            } else if name == "date" { self = .date
            } else if name == "note" { self = .note
            } else { return nil }
        }
    }

    /// The object as a dictionary.
    public var dictionary: [String: JSONValue] {
        var members = others
        if let amount { members["amount"] = amount }
        if let currency { members["currency"] = currency }
        if let category { members["category"] = category }
        if let date { members["date"] = date }
        if let note { members["note"] = note }
        return members
    }

    /// Whether the expense field `field` was sent (never for `id`, which is not one of the five).
    public func contains(_ field: ExpenseField) -> Bool {
        switch field {
        case .id: false
        case .amount: amount != nil
        case .currency: currency != nil
        case .category: category != nil
        case .date: date != nil
        case .note: note != nil
        }
    }
}
