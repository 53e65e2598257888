import ExpenseCore

/// One expense field as a `fields` member: its name, and its value read into a draft (only the JSON type is
/// checked here, so that a wrong type gets that field's own reason) and written from one.
public struct WireField: Sendable {
    /// The field.
    public let field: ExpenseField
    /// Its member name (the field's name).
    public var name: String { field.rawValue }
    /// Whether the field may be absent, meaning empty: from a record (written only when not empty) and from a
    /// create; a field (the payer, the split, the amount charged) that older programs do not know.
    public let optional: Bool
    /// Whether its value is a JSON integer (the amount, the amount charged), not a string: a CSV cell of it is read
    /// as one.
    public let integer: Bool
    /// Whether its value is a JSON array of strings (the tags), not a string: a CSV cell holds them joined by commas.
    public let list: Bool
    /// The name's bytes, compared with a member key read from a line.
    let utf8: [UInt8]
    /// Sets the draft's field from `value`, or the rejection of a value of the wrong type.
    public let read: @Sendable (_ value: JSONValue, _ draft: inout ExpenseDraft) -> MutationRejection?
    /// The draft's field as a member value; `nil` when the draft does not give it.
    public let write: @Sendable (_ draft: ExpenseDraft) -> JSONValue?

    init(_ field: ExpenseField, optional: Bool = false, integer: Bool = false, list: Bool = false, read: @escaping @Sendable (JSONValue, inout ExpenseDraft) -> MutationRejection?,
         write: @escaping @Sendable (ExpenseDraft) -> JSONValue?) {
        self.field = field
        self.optional = optional
        self.integer = integer
        self.list = list
        self.utf8 = Array(field.rawValue.utf8)
        self.read = read
        self.write = write
    }
}
