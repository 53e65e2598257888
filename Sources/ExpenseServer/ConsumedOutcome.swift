import ExpenseProtocol
import FoundationEssentials

/// What the daemon decided for a mutation it consumed, as a ``LedgerStore`` keeps it so that a `duplicate`
/// answer can repeat it (Protocol.md §5.2, §7.6). A conflict keeps only the record's id: the answer carries the
/// record as it is when the duplicate is answered.
package enum ConsumedOutcome: Hashable, Sendable {
    case applied(version: Int64, seq: Int64)
    case conflict(id: UUID)
    case rejected(MutationRejection)

    /// The outcome of a decided `status`; `nil` for a `duplicate`, which consumed nothing.
    package init?(_ status: MutationStatus) {
        switch status {
        case .applied(let version, let seq): self = .applied(version: version, seq: seq)
        case .conflict(let current): self = .conflict(id: current.expense.id)
        case .dataConflict(let current): self = .conflict(id: current.id)
        case .rejected(let rejection): self = .rejected(rejection)
        case .duplicate: return nil
        }
    }

    /// How many of a client's latest consumed mutations keep their outcome by default: a client that lost
    /// answers to fewer than this many pushes' worth of mutations learns every one of them.
    package static let defaultRetention: Int64 = 10_000

    /// Whether the outcome of `mutationId` is inside the window of a client whose last consumed mutationId is
    /// `last`, the window keeping `retention` outcomes (Protocol.md §7.6): `last - retention < mutationId <= last`.
    /// Every store checks it before it reads a kept outcome, so what leaves the window is forgotten at once.
    package static func isKept(_ mutationId: Int64, last: Int64, retention: Int64) -> Bool {
        mutationId <= last && mutationId > last - retention
    }

    /// How many of the mutationIds `first … final` (one run's) are inside that window (``isKept(_:last:retention:)``).
    package static func keptCount(from first: Int64, through final: Int64, last: Int64, retention: Int64) -> Int64 {
        max(0, min(final, last) - max(first, last - retention + 1) + 1)
    }
}
