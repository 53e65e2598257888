import ExpenseCore

/// The `fields` object of a `put`, member by member: each expense field (``ExpenseFields/all``) in its own slot,
/// every other member (a budget's, rule's or setting's, or an unknown one) in ``others``.
///
/// The daemon's push decode fills the slots straight from the line (``PushLineReader``) and the rules read them
/// (``ExpenseFields``), so an expense's mutation builds and hashes no dictionary.
/// It holds exactly what the object held: ``dictionary`` is that object, and two values are equal exactly when
/// their dictionaries are.
public struct MutationFields: Hashable, Sendable {
    /// The expense fields' values, in ``ExpenseFields/all``'s order; `nil`: not sent.
    var slots = ExpenseFields.Slots(repeating: nil)
    /// Every member that is not one of the expense fields, by name.
    public var others: [String: JSONValue] = [:]

    /// No member.
    public init() {}

    /// The members of a `fields` object read as a dictionary.
    public init(_ dictionary: [String: JSONValue]) {
        for (name, value) in dictionary { self[name] = value }
    }

    /// The member `name`, in its slot or among ``others``.
    public subscript(name: String) -> JSONValue? {
        get { ExpenseFields.slot(named: name).map { slots[$0] } ?? others[name] }
        set {
            if let slot = ExpenseFields.slot(named: name) { slots[slot] = newValue } else { others[name] = newValue }
        }
    }

    /// The value sent for the expense field `field`; `nil` when it was not (always for `id`, which is not one).
    public subscript(field: ExpenseField) -> JSONValue? {
        ExpenseFields.slot(of: field).flatMap { slots[$0] }
    }

    /// Whether the expense field `field` was sent (never for `id`).
    public func contains(_ field: ExpenseField) -> Bool { self[field] != nil }

    /// Whether every expense field was sent, the optional ones too (an edit that sends them all replaces every
    /// value).
    public var containsEveryField: Bool {
        for slot in slots.indices where slots[slot] == nil { return false }
        return true
    }

    /// Whether every field a record must hold was sent: all but the optional ones (``WireField/optional``,
    /// absent in a record that does not use them).
    public var containsEveryRequiredField: Bool {
        for slot in slots.indices where slots[slot] == nil && !ExpenseFields.all[slot].optional { return false }
        return true
    }

    /// The object as a dictionary.
    public var dictionary: [String: JSONValue] {
        var members = others
        for slot in slots.indices {
            if let value = slots[slot] { members[ExpenseFields.all[slot].name] = value }
        }
        return members
    }

    public static func == (lhs: MutationFields, rhs: MutationFields) -> Bool {
        for slot in lhs.slots.indices where lhs.slots[slot] != rhs.slots[slot] { return false }
        return lhs.others == rhs.others
    }

    public func hash(into hasher: inout Hasher) {
        for slot in slots.indices { hasher.combine(slots[slot]) }
        hasher.combine(others)
    }
}
