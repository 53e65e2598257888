import FoundationEssentials

/// How one expense is divided among ledger members, who are named by id.
///
/// A split is a ``Method`` and one ``Part`` per member: the member's id and a weight whose meaning depends on the
/// method. ``shares(amount:currency:expenseId:)`` turns it into whole minor units per member that add up to the
/// expense's amount exactly.
///
/// - Important: ``parts`` are always sorted by member id (the id's 16 bytes in order, which is the order of
///   their lower-case texts, ``UUIDText/lowercased(_:)``), hold no member twice, number 1 to ``maximumMembers``,
///   and every weight is in its method's range (see ``Method``); a percent split's weights add up to exactly
///   ``percentTotal``. Every initialiser checks this, so nothing that reads a split checks it again. An exact
///   split's sum is checked against the amount, which the split does not know, by
///   ``validate(amount:currency:)``.
public struct SplitSpec: Hashable, Sendable {
    /// How the weights divide the amount.
    public enum Method: String, Sendable, CaseIterable {
        /// The same for everyone: every weight is 1.
        case equal
        /// In proportion to whole-number shares from 1 to ``SplitSpec/maximumShares`` (`2` and `1`: two thirds
        /// and one third).
        case shares
        /// Percentages in hundredths of a percent (5000 is 50%, 3333 is 33.33%), each at least 1 (0.01%),
        /// adding up to exactly ``SplitSpec/percentTotal`` (100%).
        case percent
        /// Exact amounts in minor units, each from 1 to ``ExpenseRules/maximumAmount``, adding up to the
        /// expense's amount.
        case exact
    }

    /// One member's place in a split.
    public struct Part: Hashable, Sendable {
        /// The member's id.
        public let member: UUID
        /// The member's weight, read according to the split's ``Method``.
        public let weight: Int64

        /// A part; its weight is checked by the split that holds it.
        public init(member: UUID, weight: Int64) {
            self.member = member
            self.weight = weight
        }
    }

    /// What one member owes of one expense, in minor units (0 is possible: a cent among four leaves three at 0).
    public struct Share: Hashable, Sendable {
        /// The member's id.
        public let member: UUID
        /// The member's part of the amount, in minor units.
        public let amount: Int64

        /// A share of `amount` minor units for `member`.
        public init(member: UUID, amount: Int64) {
            self.member = member
            self.amount = amount
        }
    }

    /// The most members one split may name.
    public static let maximumMembers = 50
    /// The largest weight of a ``Method/shares`` split.
    public static let maximumShares: Int64 = 1_000_000
    /// What the weights of a ``Method/percent`` split add up to: 100% in hundredths of a percent.
    public static let percentTotal: Int64 = 10_000

    /// How the weights divide the amount.
    public let method: Method
    /// One part per member, sorted by member id, no member twice.
    public let parts: [Part]

    /// A split of `parts` (in any order) by `method`, checked and sorted by member id.
    /// - Throws: `invalid_split` for no part or percentages not adding up to 100%, `too_many_members` for more than
    ///   ``maximumMembers``, `duplicate_member` for a member twice, `invalid_share` for a weight outside its
    ///   method's range (see ``Method``).
    public init(method: Method, parts: [Part]) throws(SplitError) {
        guard !parts.isEmpty else { throw .invalidSplit("a split needs at least one member") }
        guard parts.count <= Self.maximumMembers else { throw .tooManyMembers(parts.count) }
        let sorted = Self.sortedByMember(parts) { $0.member }
        for (previous, next) in zip(sorted, sorted.dropFirst()) where previous.member == next.member {
            throw .duplicateMember(UUIDText.lowercased(next.member))
        }
        let range = Self.weightRange(method)
        for part in sorted where !range.contains(part.weight) {
            let who = UUIDText.lowercased(part.member)
            throw .invalidShare(part.weight < 1
                ? "the weight of \(who) is \(part.weight); weights are at least 1"
                : "the weight of \(who) is \(part.weight); \(method.rawValue) weights are at most \(range.upperBound)")
        }
        if method == .percent {
            // At most 50 weights of at most 10000 each: the sum cannot overflow.
            let total = sorted.reduce(Int64(0)) { $0 + $1.weight }
            guard total == Self.percentTotal else { throw .percentSumMismatch(total: total) }
        }
        self.method = method
        self.parts = sorted
    }

    // MARK: - Canonical text

    /// The canonical text, stored in databases and sent on the wire: the method, a colon, then the parts in member
    /// id order separated by commas, ids in lower case: `equal:ID,ID,ID`, `shares:ID=2,ID=1`,
    /// `percent:ID=5000,ID=5000` (hundredths of a percent), `exact:ID=1250,ID=750` (minor units).
    public var text: String {
        var text = method.rawValue + ":"
        for (index, part) in parts.enumerated() {
            if index > 0 { text += "," }
            text += UUIDText.lowercased(part.member)
            if method != .equal { text += "=" + String(part.weight) }
        }
        return text
    }

    /// Reads exactly the canonical ``text`` and nothing else, then checks every rule of ``init(method:parts:)``.
    ///
    /// Strict on purpose, so that one split has one text and two machines storing the same split store the same
    /// bytes: the method name in lower case, a colon, then the parts separated by single commas, no spaces
    /// anywhere; each part a lower-case id, followed (except for `equal`) by `=` and a weight written in decimal
    /// digits with no sign and no leading zero (`0` itself is read, and refused as a weight); ids strictly
    /// increasing (sorted, no member twice).
    /// - Throws: `invalid_split` for any other text (and as ``init(method:parts:)``), `duplicate_member`,
    ///   `too_many_members`, `invalid_share`.
    public init(text: String) throws(SplitError) {
        guard let colon = text.firstIndex(of: ":"), let method = Method(rawValue: String(text[..<colon])) else {
            throw .invalidSplit("\(DisplayText.quoted(text)) does not start with equal:, shares:, percent: or exact:")
        }
        let body = text[text.index(after: colon)...]
        guard !body.isEmpty else { throw .invalidSplit("a split needs at least one member") }
        let pieces = body.split(separator: ",", omittingEmptySubsequences: false)
        guard pieces.count <= Self.maximumMembers else { throw .tooManyMembers(pieces.count) }
        var parts: [Part] = []
        var seen = Set<UUID>()
        for piece in pieces {
            let idText: Substring
            var weight: Int64 = 1
            if method == .equal {
                idText = piece
            } else {
                guard let equals = piece.firstIndex(of: "=") else {
                    throw .invalidSplit("\(DisplayText.quoted(String(piece))) is not ID=WEIGHT")
                }
                idText = piece[..<equals]
                weight = try Self.canonicalWeight(piece[piece.index(after: equals)...], in: piece)
            }
            // UUIDText reads either case; the canonical text has lower case only.
            guard let id = UUIDText.parse(String(idText)), ExactText.same(UUIDText.lowercased(id), String(idText)) else {
                throw .invalidSplit("\(DisplayText.quoted(String(idText))) is not a member id in lower case")
            }
            guard seen.insert(id).inserted else { throw .duplicateMember(String(idText)) }
            parts.append(Part(member: id, weight: weight))
        }
        for (previous, next) in zip(parts, parts.dropFirst()) where Self.memberKey(previous.member) > Self.memberKey(next.member) {
            throw .invalidSplit("the members are not in id order, as the canonical text lists them")
        }
        try self.init(method: method, parts: parts)
    }

    /// A canonical weight: `0` or a digit 1–9 followed by digits, fitting in an `Int64`.
    private static func canonicalWeight(_ digits: Substring, in piece: Substring) throws(SplitError) -> Int64 {
        let bytes = Array(digits.utf8)
        guard let first = bytes.first, bytes.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              first != UInt8(ascii: "0") || bytes.count == 1 else {
            throw .invalidSplit("\(DisplayText.quoted(String(piece))) does not end in a weight without sign or leading zero")
        }
        var value: Int64 = 0
        for byte in bytes {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else {
                throw .invalidShare("the weight in \(DisplayText.quoted(String(piece))) is larger than any weight allowed")
            }
            value = sum
        }
        return value
    }

    // MARK: - Shares

    /// What each member owes of `amount` minor units, in the order of ``parts`` (member id order); the shares add
    /// up to `amount` exactly.
    ///
    /// For ``Method/exact`` the shares are the weights. Otherwise each member's exact share is
    /// `amount × weight / totalWeight`: each gets its floor, and the `R` minor units left over (fewer than the
    /// number of members) go one each to the `R` members with the largest remainders
    /// (`amount × weight mod totalWeight`). Equal remainders are told apart by a rotation: with `n` members in id
    /// order, `start` is the expense id's 16 bytes read as a big-endian `UInt128`, modulo `n`; the member at
    /// index `start` comes first, then `start + 1`, and so on, wrapping. So the odd cent falls on a different
    /// member from one expense to the next without any stored state, and never depends on the order names were
    /// typed or on the machine. Every share is within one minor unit of its exact value: a member given an extra
    /// unit always had a remainder above zero.
    /// - Parameters:
    ///   - amount: the expense's amount in minor units, 1 to ``ExpenseRules/maximumAmount``.
    ///   - currency: the expense's currency (for messages only).
    ///   - expenseId: the expense's id, which picks where the rotation starts.
    /// - Throws: as ``validate(amount:currency:)``.
    public func shares(amount: Int64, currency: Currency, expenseId: UUID) throws(SplitError) -> [Share] {
        try validate(amount: amount, currency: currency)
        if method == .exact { return parts.map { Share(member: $0.member, amount: $0.weight) } }
        return try proportionalShares(amount: amount, expenseId: expenseId)
    }

    /// The shares of `amount`, an expense's amount converted into another currency (`balances --in`): the same
    /// division as ``shares(amount:currency:expenseId:)``, with an exact split's amounts read as weights (so the
    /// converted amount is divided in proportion to the original exact shares, by the same largest-remainder
    /// rule). They add up to `amount` exactly.
    /// - Parameters:
    ///   - amount: the converted amount in minor units, 0 to ``ExpenseRules/maximumAmount``.
    ///   - expenseId: the expense's id, which picks where the rotation starts.
    /// - Throws: `invalid_split` for an amount outside that range.
    public func convertedShares(amount: Int64, expenseId: UUID) throws(SplitError) -> [Share] {
        guard (0...ExpenseRules.maximumAmount).contains(amount) else {
            throw .invalidSplit("the amount to split must be from 0 to \(ExpenseRules.maximumAmount) minor units, not \(amount)")
        }
        return try proportionalShares(amount: amount, expenseId: expenseId)
    }

    /// `amount` divided in proportion to the weights: floors, then the units left over by largest remainder,
    /// ties by the rotation the expense id starts (``shares(amount:currency:expenseId:)``).
    private func proportionalShares(amount: Int64, expenseId: UUID) throws(SplitError) -> [Share] {
        // Weights below 2^53 each (an exact split's; the others' are below 2^20), at most 50 of them: in range.
        guard let amounts = ProportionalDivision.divide(amount, weights: parts.map(\.weight), rotation: expenseId) else {
            throw .amountOverflow
        }
        return zip(parts, amounts).map { Share(member: $0.member, amount: $1) }
    }

    /// Checks the split against an expense's amount: the amount is 1 to ``ExpenseRules/maximumAmount``, and an
    /// exact split's amounts add up to it (nothing more for the other methods, whose shares always do).
    /// - Throws: `invalid_split`, saying by how much an exact split's amounts miss.
    public func validate(amount: Int64, currency: Currency) throws(SplitError) {
        guard (1...ExpenseRules.maximumAmount).contains(amount) else {
            throw .invalidSplit("the amount to split must be from 1 to \(ExpenseRules.maximumAmount) minor units, not \(amount)")
        }
        guard method == .exact else { return }
        // At most 50 amounts of at most 2^53−1 each: the sum cannot overflow.
        let sum = parts.reduce(Int64(0)) { $0 + $1.weight }
        guard sum == amount else { throw .exactSumMismatch(sum: sum, amount: amount, currency: currency) }
    }

    // MARK: - Helpers

    /// `text` without white space or newlines around it: the trimming of member names (``Member/named(_:in:)``).
    static func trimmed(_ text: some StringProtocol) -> String {
        text.trimmingWhitespace
    }

    /// The weights `method` allows for one member.
    static func weightRange(_ method: Method) -> ClosedRange<Int64> {
        switch method {
        case .equal: 1...1
        case .shares: 1...maximumShares
        case .percent: 1...percentTotal
        case .exact: 1...ExpenseRules.maximumAmount
        }
    }

    /// The order of member ids: the 16 bytes as two big-endian numbers, compared as a tuple, which sorts as the
    /// bytes do and as their lower-case texts do (``UUIDBlob``).
    static func memberKey(_ id: UUID) -> (UInt64, UInt64) {
        withUnsafeBytes(of: id.uuid) { raw in
            (UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
             UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
    }

    /// `items` sorted by member id (``memberKey(_:)``, each key computed once).
    static func sortedByMember<Item>(_ items: [Item], member: (Item) -> UUID) -> [Item] {
        let keys = items.map { memberKey(member($0)) }
        return keys.indices.sorted { keys[$0] < keys[$1] }.map { items[$0] }
    }

    /// Hundredths of a percent as a person reads them: `50%`, `33.33%`, `0.5%`, `-10%`.
    static func percentText(_ hundredths: Int128) -> String {
        let magnitude = hundredths.magnitude
        var text = (hundredths < 0 ? "-" : "") + String(magnitude / 100)
        let fraction = magnitude % 100
        if fraction != 0 {
            text += fraction % 10 == 0 ? "." + String(fraction / 10) : (fraction < 10 ? ".0" : ".") + String(fraction)
        }
        return text + "%"
    }
}
