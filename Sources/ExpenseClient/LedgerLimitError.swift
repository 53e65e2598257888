import ExpenseCore

/// A local change refused because it would break a rule the daemon enforces (Protocol.md, "push":
/// `amount_overflow`), so that it never sits in the queue only to be rejected, and local totals never fail.
package enum LedgerLimitError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The live expenses of `currency` would sum to more than `Int64.max` minor units.
    case totalOverflow(currency: Currency)
    /// A summary's total (or a group's) in `currency` does not fit in `Int64` minor units: possible only when
    /// the local view combines records that were never live together on the daemon.
    case summaryOverflow(currency: Currency)

    /// The stable code: the same `amount_overflow` the daemon answers with.
    package var code: String { "amount_overflow" }

    package var message: String {
        switch self {
        case .totalOverflow(let currency):
            "the total of all \(currency.code) expenses would not fit in a 64-bit integer of minor units "
                + "(at most \(Int64.max)); nothing was stored"
        case .summaryOverflow(let currency):
            "the total of the \(currency.code) expenses asked for does not fit in a 64-bit integer of minor units; "
                + "narrow it with --from, --to or --category, or ask the daemon (`expense summary --server`)"
        }
    }

    package var description: String { "\(code): \(message)" }
}
