import ExpenseCore

/// The `fields` object of a `put`, member by member: each expense field (``ExpenseFields/all``) in its own slot,
/// every other member (a budget's, rule's or setting's, or an unknown one) in ``others``.
///
/// The daemon's push decode fills the slots straight from the line (``PushLineReader``) and the rules read them
/// (``ExpenseFields``), so an expense's mutation builds and hashes no dictionary.
/// It holds exactly what the object held: ``dictionary`` is that object, and two values are equal exactly when
/// their dictionaries are.
///
/// The required fields' slots are held in place, the optional fields' (``WireField/optional``: the payer, the
/// split, the amount charged, tags, parts, the original text) behind one reference made only once one of them is
/// sent: a mutation is copied several times between the line and the ledger, and each copy of a slot is paid
/// whether the field was sent or not, so a put that uses none of them pays nothing for them (with every slot in
/// place, the three fields added after the amount charged cost a 500-mutation push about 2k instructions per
/// mutation on the loop thread, `Benchmarks/push-profile`).
public struct MutationFields: Hashable, Sendable {
    /// The required fields' values, the first ``ExpenseFields/RequiredSlots/count`` of ``ExpenseFields/all``.
    private var required = ExpenseFields.RequiredSlots(repeating: nil)
    /// The optional fields' values, the rest of ``ExpenseFields/all``; `nil`: none of them sent.
    private var optionalSlots: OptionalSlotsBox?
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
            if slot < ExpenseFields.RequiredSlots.count { return required[slot] }
            return optionalSlots?.values[slot - ExpenseFields.RequiredSlots.count]
        }
        set {
            if slot < ExpenseFields.RequiredSlots.count {
                required[slot] = newValue
                return
            }
            let index = slot - ExpenseFields.RequiredSlots.count
            if var box = optionalSlots.take() {
                // Copied on write: another MutationFields may share the box.
                if !isKnownUniquelyReferenced(&box) { box = OptionalSlotsBox(box.values) }
                box.values[index] = newValue
                optionalSlots = box
            } else if newValue != nil {
                var values = ExpenseFields.OptionalSlots(repeating: nil)
                values[index] = newValue
                optionalSlots = OptionalSlotsBox(values)
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
        for slot in required.indices where required[slot] == nil { return false }
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

/// The optional fields' slots of a ``MutationFields``, shared by its copies until one of them changes a slot.
private final class OptionalSlotsBox: @unchecked Sendable {
    // @unchecked Sendable: `values` is written only through a MutationFields holding the one reference to it
    // (`isKnownUniquelyReferenced`, copied on write), so a box two values or threads share is never written.
    var values: ExpenseFields.OptionalSlots

    init(_ values: ExpenseFields.OptionalSlots) { self.values = values }
}
