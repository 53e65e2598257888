import ExpenseCore

/// The `fields` object of a `put`, member by member: each expense field (``ExpenseFields/all``) in its own slot,
/// every other member (a budget's, rule's or setting's, or an unknown one) in ``others``.
///
/// The daemon's push decode fills the slots straight from the line (``PushLineReader``) and the rules read them
/// (``ExpenseFields``), so an expense's mutation builds and hashes no dictionary.
/// It holds exactly what the object held: ``dictionary`` is that object, and two values are equal exactly when
/// their dictionaries are.
///
/// The slots are held behind references, the required fields' in one box made for any put that sends one, the
/// optional fields' (``WireField/optional``: the payer, the split, the amount charged, tags, parts, the original
/// text) in another made only once one of them is sent. A mutation is copied several times between the line and
/// the ledger (into its members, its result, its push item, its prepared item): held in place, each copy moved the
/// five required slots' 120 bytes and retained every value in them, about 1.8k instructions per mutation of a
/// 500-mutation push on the loop thread (`Benchmarks/push-profile`); behind a box, a copy retains one reference.
public struct MutationFields: Hashable, Sendable {
    /// The required fields' values, the first ``ExpenseFields/RequiredSlots/count`` of ``ExpenseFields/all``;
    /// `nil`: none of them sent.
    private var requiredSlots: SlotsBox<5>?
    /// The optional fields' values, the rest of ``ExpenseFields/all``; `nil`: none of them sent.
    private var optionalSlots: SlotsBox<6>?
    /// Every member that is not one of the expense fields, by name.
    public var others: [String: JSONValue] = [:]

    /// No member.
    public init() {}

    /// The members of a `fields` object read as a dictionary.
    public init(_ dictionary: [String: JSONValue]) {
        for (name, value) in dictionary { self[name] = value }
    }

    /// The slots, one per entry of ``ExpenseFields/all``.
    static var slots: Range<Int> { 0..<(ExpenseFields.RequiredSlots.count + ExpenseFields.OptionalSlots.count) }

    /// The value of slot `slot` (the field ``ExpenseFields/all`` has at that index); `nil`: not sent.
    subscript(slot slot: Int) -> JSONValue? {
        @inline(__always) get {
            // Typed as ExpenseFields' slot lists, so a box of another size does not compile.
            if slot < ExpenseFields.RequiredSlots.count {
                return (requiredSlots?.values as ExpenseFields.RequiredSlots?)?[slot]
            }
            return (optionalSlots?.values as ExpenseFields.OptionalSlots?)?[slot - ExpenseFields.RequiredSlots.count]
        }
        set {
            if slot < ExpenseFields.RequiredSlots.count {
                SlotsBox.set(newValue, at: slot, in: &requiredSlots)
            } else {
                SlotsBox.set(newValue, at: slot - ExpenseFields.RequiredSlots.count, in: &optionalSlots)
            }
        }
    }

    /// The member `name`, in its slot or among ``others``.
    public subscript(name: String) -> JSONValue? {
        get { ExpenseFields.slot(named: name).map { self[slot: $0] } ?? others[name] }
        set {
            if let slot = ExpenseFields.slot(named: name) { self[slot: slot] = newValue } else { others[name] = newValue }
        }
    }

    /// The value sent for the expense field `field`; `nil` when it was not (always for `id`, which is not one).
    public subscript(field: ExpenseField) -> JSONValue? {
        ExpenseFields.slot(of: field).flatMap { self[slot: $0] }
    }

    /// Whether the expense field `field` was sent (never for `id`).
    public func contains(_ field: ExpenseField) -> Bool { self[field] != nil }

    /// Whether every expense field was sent, the optional ones too (an edit that sends them all replaces every
    /// value).
    public var containsEveryField: Bool {
        for slot in Self.slots where self[slot: slot] == nil { return false }
        return true
    }

    /// Whether every field a record must hold was sent: all but the optional ones (``WireField/optional``,
    /// absent in a record that does not use them).
    public var containsEveryRequiredField: Bool {
        for slot in 0..<ExpenseFields.RequiredSlots.count where self[slot: slot] == nil { return false }
        return true
    }

    /// The object as a dictionary.
    public var dictionary: [String: JSONValue] {
        var members = others
        for slot in Self.slots {
            if let value = self[slot: slot] { members[ExpenseFields.all[slot].name] = value }
        }
        return members
    }

    public static func == (lhs: MutationFields, rhs: MutationFields) -> Bool {
        for slot in slots where lhs[slot: slot] != rhs[slot: slot] { return false }
        return lhs.others == rhs.others
    }

    public func hash(into hasher: inout Hasher) {
        for slot in Self.slots { hasher.combine(self[slot: slot]) }
        hasher.combine(others)
    }
}

/// Slots of a ``MutationFields`` (its required or its optional fields'), shared by its copies until one of them
/// changes a slot.
private final class SlotsBox<let count: Int>: @unchecked Sendable {
    // @unchecked Sendable: `values` is written only through a MutationFields holding the one reference to it
    // (`isKnownUniquelyReferenced`, copied on write), so a box two values or threads share is never written.
    var values: InlineArray<count, JSONValue?>

    init(_ values: InlineArray<count, JSONValue?>) { self.values = values }

    /// Sets slot `index` of the box `box` refers to, copying it first if another value shares it, and making it
    /// when there is none and `value` is not `nil`.
    static func set(_ value: JSONValue?, at index: Int, in box: inout SlotsBox?) {
        if var held = box.take() {
            if !isKnownUniquelyReferenced(&held) { held = SlotsBox(held.values) }
            held.values[index] = value
            box = held
        } else if value != nil {
            var values = InlineArray<count, JSONValue?>(repeating: nil)
            values[index] = value
            box = SlotsBox(values)
        }
    }
}
