import FoundationEssentials

/// A person a ledger's money is shared among (`expense member add NAME`): who pays an expense and whom a split
/// divides it among. Expenses name a member by id, so a rename changes nothing they hold.
public struct Member: Hashable, Sendable, Identifiable {
    /// Whether a member is offered for new splits.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        /// In the ledger: may pay and be in new splits.
        case active
        /// Left the ledger: stays in past splits and in balances, but is not offered for new ones.
        case left
    }

    /// The member's record id, made once by the machine that added them.
    public let id: UUID
    /// Trimmed, 1 to 64 characters and at most 256 bytes of UTF-8, no control characters; unique in the ledger
    /// (compared by its bytes, ``ExactText``).
    public var name: String
    public var status: Status

    public init(id: UUID, name: String, status: Status = .active) {
        self.id = id
        self.name = name
        self.status = status
    }

    /// Whether the member may pay or be in a new split.
    public var isActive: Bool { status == .active }

    /// The most characters of a name (as a category's).
    public static let maximumNameLength = ExpenseRules.maximumCategoryLength

    /// The member as record fields (``LedgerDataValidator/member(id:fields:)`` reads them back).
    public var fields: LedgerDataFields { ["name": .text(name), "status": .text(status.rawValue)] }

    /// The namespace of member ids (a random UUID chosen once for this program).
    public static let namespace = UUID(uuid: (0x8e, 0x31, 0x5b, 0x0c, 0x27, 0xd4, 0x4f, 0x96,
                                              0xa1, 0x6e, 0x3f, 0x70, 0xc2, 0x58, 0x19, 0xbd))

    /// The id a member added as `name` gets: a name-based UUID of the trimmed name, so that two machines adding the
    /// same person offline make one member (an identical create is one record), not two records of which the
    /// daemon refuses the second (`member_exists`) and with it every expense that names it. A name whose id is
    /// taken already (its member was renamed since) gets a random id instead.
    public static func id(named name: String) -> UUID {
        NameBasedUUID.make(namespace: namespace, name: NameBasedUUID.name([name.trimmingWhitespace]))
    }

    /// Why `expense` (replacing `old`, if it changes one) cannot be stored beside the ledger's members: a new
    /// payer, or a member of a new split, that `member` does not find (`unknown_member`) or who has left
    /// (`member_left`), with the field naming them; `nil` when every member is fine. A payer and a split kept as
    /// they were may name members who left since. The one rule of the daemon and of the client's checks.
    public static func refusal(of expense: Expense, replacing old: Expense?,
                               member: (UUID) throws -> Member?) rethrows -> (error: SplitError, field: ExpenseField)? {
        var named: [(id: UUID, field: ExpenseField)] = []
        if let payer = expense.paidBy, payer != old?.paidBy { named.append((payer, .paidBy)) }
        if let split = expense.split, split != old?.split { named += split.parts.map { ($0.member, .split) } }
        for (id, field) in named {
            guard let found = try member(id) else { return (.unknownMember(UUIDText.lowercased(id)), field) }
            if !found.isActive { return (.memberLeft(found.name), field) }
        }
        return nil
    }

    /// The live member among `members` whose name is `name` once trimmed, by its bytes; `nil` when none is.
    public static func named(_ name: String, in members: some Sequence<Member>) -> Member? {
        let trimmed = name.trimmingWhitespace
        return members.first { ExactText.same($0.name, trimmed) }
    }
}
