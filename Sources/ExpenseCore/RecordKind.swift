/// The kinds of record a ledger holds (Protocol.md §10). Expenses are the protocol-1 records; the others are
/// served only to a client that asks for them in `hello`.
///
/// - Important: the declared order is stored (the daemons' history keeps a kind as its index in ``allCases``):
///   declare a new kind last, never reorder. docs/modules.md, "Adding a record kind besides expenses", lists what else a kind needs.
public enum RecordKind: String, Sendable, Hashable, CaseIterable, Comparable {
    /// An expense: the record every protocol-1 client knows (a record with no `kind` member).
    case expense
    /// A budget for one (category, currency): ``Budget``.
    case budget
    /// A recurring rule: ``RecurringRule``.
    case recurring
    /// A ledger setting (the ledger's time zone): ``LedgerSetting``.
    case setting
    /// A person the ledger's money is shared among: ``Member``.
    case member
    /// Money one member paid another back: ``Transfer``.
    case transfer
    /// An exchange rate of one day between two currencies: ``ExchangeRate``.
    case rate
    /// A rule that categorises imported and existing expenses: ``ImportRule``.
    case rule

    /// The kinds other than expenses, which a client must ask for.
    public static let additional: [RecordKind] = allCases.filter { $0 != .expense }

    public static func < (lhs: RecordKind, rhs: RecordKind) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A field value of a budget, a recurring rule or a setting: the JSON values those records use (no fractions,
/// no booleans, no null), so they can be stored and sent without knowing the kind.
public indirect enum LedgerDataValue: Hashable, Sendable {
    case integer(Int64)
    case text(String)
    case list([LedgerDataValue])
    case object([String: LedgerDataValue])

    /// Whether two values are the same: text compared byte for byte (``ExactText``), the rest structurally.
    public func same(as other: LedgerDataValue) -> Bool {
        switch (self, other) {
        case (.integer(let a), .integer(let b)): a == b
        case (.text(let a), .text(let b)): ExactText.same(a, b)
        case (.list(let a), .list(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.same(as: $1) }
        case (.object(let a), .object(let b)):
            a.count == b.count && a.allSatisfy { key, value in b[key].map { value.same(as: $0) } ?? false }
        default: false
        }
    }
}

/// The fields of a budget, recurring rule or setting, by name.
public typealias LedgerDataFields = [String: LedgerDataValue]
