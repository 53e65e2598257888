/// Why a split (``SplitSpec``) or a set of balances (``Balances``) was refused.
///
/// Every case has a stable snake_case ``code``, shown by the protocol and the CLI and matched on by scripts: once
/// shipped, a code never changes. Several cases share `invalid_split`; they differ only in the ``message``, which
/// says by how much a sum misses where one does.
public enum SplitError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The split's text or shape is wrong (not the canonical form, forms mixed, no member, an empty name, a value
    /// that is not a number); `detail` says what and what is allowed. Whatever someone typed is in `detail` already
    /// through ``DisplayText/quoted(_:quote:)`` (so bounded); the message escapes the rest without cutting it.
    case invalidSplit(String)
    /// An exact split's amounts add up to `sum` minor units, not to the expense's `amount`.
    case exactSumMismatch(sum: Int64, amount: Int64, currency: Currency)
    /// A percent split's percentages add up to `total` hundredths of a percent, not to 10000 (100%).
    case percentSumMismatch(total: Int64)
    /// No member of the ledger has this name.
    case unknownMember(String)
    /// The member with this name has left the ledger and cannot be in a new split.
    case memberLeft(String)
    /// The same member is named twice in one split; `name` is how the second was written (a name or an id).
    case duplicateMember(String)
    /// More than ``SplitSpec/maximumMembers`` members; `count` is how many were given.
    case tooManyMembers(Int)
    /// A share, percentage or amount is zero, negative or above its limit; `detail` says whose and what is allowed.
    case invalidShare(String)
    /// A member's total paid, total share or net in one currency would not fit in a 64-bit integer of minor units.
    case amountOverflow

    /// The stable snake_case code, such as `invalid_split`.
    public var code: String {
        switch self {
        case .invalidSplit, .exactSumMismatch, .percentSumMismatch: "invalid_split"
        case .unknownMember: "unknown_member"
        case .memberLeft: "member_left"
        case .duplicateMember: "duplicate_member"
        case .tooManyMembers: "too_many_members"
        case .invalidShare: "invalid_share"
        case .amountOverflow: "amount_overflow"
        }
    }

    /// A sentence for a person: what was wrong and how to fix it. Text that someone typed is shown through
    /// ``DisplayText``, so the message holds no control character.
    public var message: String {
        switch self {
        case .invalidSplit(let detail):
            "invalid split: \(DisplayText.escapedWhole(detail))"
        case .exactSumMismatch(let sum, let amount, let currency):
            "invalid split: the exact amounts add up to \(Money.format(sum, currency: currency)), "
                + Self.miss(sum, amount, currency: currency)
                + "; make them add up to the expense's amount"
        case .percentSumMismatch(let total):
            "invalid split: the percentages add up to \(SplitSpec.percentText(Int128(total))), "
                + Self.percentMiss(total) + "; make them add up to exactly 100%"
        case .unknownMember(let name):
            "no member of the ledger is named \(DisplayText.quoted(name)); see the ledger's members, or add one"
        case .memberLeft(let name):
            "\(DisplayText.quoted(name)) has left the ledger and cannot be in a new split"
        case .duplicateMember(let name):
            "\(DisplayText.quoted(name)) is in the split twice; name each member once"
        case .tooManyMembers(let count):
            "the split has \(count) members; a split has at most \(SplitSpec.maximumMembers)"
        case .invalidShare(let detail):
            "invalid share: \(DisplayText.escapedWhole(detail))"
        case .amountOverflow:
            "a member's total in this currency would not fit in a 64-bit integer of minor units"
        }
    }

    public var description: String { "\(code): \(message)" }

    /// `10% short of 100%` or `0.5% more than 100%`.
    private static func percentMiss(_ total: Int64) -> String {
        let difference = Int128(SplitSpec.percentTotal) - Int128(total)
        return "\(SplitSpec.percentText(difference < 0 ? -difference : difference)) "
            + (difference > 0 ? "short of 100%" : "more than 100%")
    }

    /// `1.00 short of 20.00` or `1.00 more than 20.00`. Computed in `Int128`: the case is public, so any two
    /// `Int64`s can reach it, and their difference need not fit in an `Int64`.
    private static func miss(_ sum: Int64, _ amount: Int64, currency: Currency) -> String {
        let shown = Money.format(amount, currency: currency)
        let difference = Int128(amount) - Int128(sum)
        guard let magnitude = Int64(exactly: difference.magnitude) else { return "not \(shown)" }
        return "\(Money.format(magnitude, currency: currency)) \(difference > 0 ? "short of" : "more than") \(shown)"
    }
}
