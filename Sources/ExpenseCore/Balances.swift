import FoundationEssentials

/// One shared expense or one transfer, as balances need it: who paid, how much, and what each member owes of it.
///
/// A transfer (member `from` paid member `to` back) is an entry too, ``transfer(from:to:amount:currency:)``: it
/// raises what `from` paid and what `to` owes by the same amount, so the nets of a currency always add up to zero.
public struct BalanceEntry: Sendable {
    /// The member who paid.
    public let payer: UUID
    /// The currency of the amount and of every share.
    public let currency: Currency
    /// What the payer paid, in minor units: 1 to ``ExpenseRules/maximumAmount``.
    public let amount: Int64
    /// What each member owes of it (``SplitSpec/shares(amount:currency:expenseId:)``); they add up to `amount`.
    /// A member may be named more than once: their shares are added.
    public let shares: [SplitSpec.Share]

    /// An entry; ``Balances/init(_:)`` checks it.
    public init(payer: UUID, currency: Currency, amount: Int64, shares: [SplitSpec.Share]) {
        self.payer = payer
        self.currency = currency
        self.amount = amount
        self.shares = shares
    }

    /// Member `from` paid member `to` back `amount` minor units.
    public static func transfer(from: UUID, to: UUID, amount: Int64, currency: Currency) -> BalanceEntry {
        BalanceEntry(payer: from, currency: currency, amount: amount, shares: [SplitSpec.Share(member: to, amount: amount)])
    }
}

/// What one member paid and owes in one currency.
public struct MemberBalance: Hashable, Sendable {
    /// The member's id.
    public let member: UUID
    /// Everything the member paid (expenses and transfers made), in minor units; never negative.
    public let paid: Int64
    /// Everything the member owes (shares of expenses and transfers received), in minor units; never negative.
    public let share: Int64
    /// `paid - share`: above zero the member is owed money, below zero they owe it. Computed with checked
    /// arithmetic when the balances are built, so reading it never traps.
    public let net: Int64
}

/// Who owes whom, per currency, over a set of expenses and transfers, and the transfers that would settle it.
///
/// - Important: in every currency the members' nets add up to exactly zero: every entry's shares add up to its
///   amount (``init(_:)`` checks it), so each entry adds as much to the payers' `paid` as to the members' `share`.
public struct Balances: Sendable {
    /// A suggested payment: `from` pays `to` back `amount` minor units of `currency`.
    public struct Transfer: Hashable, Sendable {
        /// The member who owes and pays.
        public let from: UUID
        /// The member who is owed and receives.
        public let to: UUID
        /// The amount in minor units, above zero.
        public let amount: Int64
        /// The currency of the amount.
        public let currency: Currency

        /// A transfer of `amount` minor units of `currency` from `from` to `to`.
        public init(from: UUID, to: UUID, amount: Int64, currency: Currency) {
            self.from = from
            self.to = to
            self.amount = amount
            self.currency = currency
        }

        /// The transfer as an entry, to record it once it has been paid.
        public var entry: BalanceEntry { .transfer(from: from, to: to, amount: amount, currency: currency) }
    }

    /// Every currency some entry is in, sorted by code.
    public let currencies: [Currency]
    /// Each currency's balances (by code), sorted by member id.
    private let byCurrency: [String: [MemberBalance]]

    /// The balances of `entries`.
    /// - Throws: `invalid_split` for an amount outside 1 … ``ExpenseRules/maximumAmount`` or shares that do not add
    ///   up to it, `invalid_share` for a negative share, `amount_overflow` when a member's total paid, total share or
    ///   net in one currency does not fit in an `Int64` (checked, never trapping or wrapping).
    public init(_ entries: some Sequence<BalanceEntry>) throws(SplitError) {
        // Per currency code, each member's paid and share. Updated in place (`default:` subscripts), never copied per
        // entry.
        var totals: [String: [UUID: (paid: Int64, share: Int64)]] = [:]
        var currencies: [String: Currency] = [:]
        for entry in entries {
            guard (1...ExpenseRules.maximumAmount).contains(entry.amount) else {
                throw .invalidSplit("an amount must be from 1 to \(ExpenseRules.maximumAmount) minor units, not \(entry.amount)")
            }
            var sum: Int64 = 0
            for share in entry.shares {
                guard share.amount >= 0 else {
                    throw .invalidShare("the share of \(UUIDText.lowercased(share.member)) is \(share.amount); shares are not negative")
                }
                sum = try Self.add(sum, share.amount)
            }
            guard sum == entry.amount else {
                throw .invalidSplit("the shares add up to \(Money.format(sum, currency: entry.currency)), "
                    + "not to the amount \(Money.format(entry.amount, currency: entry.currency))")
            }
            let code = entry.currency.code
            if currencies[code] == nil { currencies[code] = entry.currency }
            let paid = try Self.add(totals[code]?[entry.payer]?.paid ?? 0, entry.amount)
            totals[code, default: [:]][entry.payer, default: (0, 0)].paid = paid
            for share in entry.shares {
                let owed = try Self.add(totals[code]?[share.member]?.share ?? 0, share.amount)
                totals[code, default: [:]][share.member, default: (0, 0)].share = owed
            }
        }
        var byCurrency: [String: [MemberBalance]] = [:]
        for (code, members) in totals {
            var balances: [MemberBalance] = []
            balances.reserveCapacity(members.count)
            for (member, sums) in members {
                // Both sums are at least zero, so the difference fits; checked all the same.
                let (net, overflow) = sums.paid.subtractingReportingOverflow(sums.share)
                guard !overflow else { throw .amountOverflow }
                balances.append(MemberBalance(member: member, paid: sums.paid, share: sums.share, net: net))
            }
            byCurrency[code] = SplitSpec.sortedByMember(balances) { $0.member }
        }
        self.currencies = currencies.values.sorted()
        self.byCurrency = byCurrency
    }

    /// Every member with an entry in `currency` (as payer or in a share, even of 0), sorted by member id; empty
    /// for a currency without entries.
    public func balances(in currency: Currency) -> [MemberBalance] {
        byCurrency[currency.code] ?? []
    }

    /// Transfers that settle every balance in `currency`, in the order they were chosen.
    ///
    /// Greedy: the largest debtor (most negative net) pays the largest creditor (most positive net) the smaller of
    /// the debt and the credit, and again on what is left, until nothing is owed; among equal debts or credits
    /// the member with the lower id goes first. Each transfer settles at least one of the two in full, and the last
    /// settles both, so there are at most one fewer transfers than members with a balance. The choice depends only
    /// on the balances, so recording the first suggestion and asking again gives the rest of the list unchanged.
    /// Recording a later one first need not: nets A −63, B +18, C +56, D +46, E −57 suggest A→C 56, E→D 46,
    /// E→B 11, A→B 7; with A→B 7 recorded, the suggestions become E→C 56, A→D 46, A→B 10, E→B 1.
    /// Takes time quadratic in the number of members with a balance (a ledger has a few).
    public func settlement(in currency: Currency) -> [Transfer] {
        let balances = balances(in: currency)
        // Magnitudes as UInt64: a net is never Int64.min (paid and share are both at least zero), but no negation
        // is needed to know that.
        var debts = balances.filter { $0.net < 0 }.map { (member: $0.member, amount: $0.net.magnitude) }
        var credits = balances.filter { $0.net > 0 }.map { (member: $0.member, amount: $0.net.magnitude) }
        var transfers: [Transfer] = []
        while let debtor = Self.largest(debts), let creditor = Self.largest(credits) {
            let paid = min(debts[debtor].amount, credits[creditor].amount)
            // At most a credit, which came from an Int64.
            guard let amount = Int64(exactly: paid) else { break }
            transfers.append(Transfer(from: debts[debtor].member, to: credits[creditor].member, amount: amount, currency: currency))
            debts[debtor].amount -= paid
            credits[creditor].amount -= paid
        }
        return transfers
    }

    /// The index of the largest amount above zero, the first (lowest member id) among equals; `nil` when none is.
    private static func largest(_ amounts: [(member: UUID, amount: UInt64)]) -> Int? {
        var best: Int?
        for index in amounts.indices where amounts[index].amount > 0 {
            if let current = best, amounts[current].amount >= amounts[index].amount { continue }
            best = index
        }
        return best
    }

    /// `a + b`, or `amount_overflow`.
    private static func add(_ a: Int64, _ b: Int64) throws(SplitError) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard !overflow else { throw .amountOverflow }
        return sum
    }
}
