import ExpenseProtocol
import FoundationEssentials

/// One client's outcomes of consecutive mutationIds `first, first + 1, …`: what a transaction keeps for a client
/// (Protocol.md §7.6), and what both stores append as one row per client per group commit, packed by
/// ``PackedOutcomeRun`` (the SQLite store's `outcome_runs`, `SQLiteLedgerStore+Outcomes.swift`; the PostgreSQL
/// store's, `PostgresLedgerStore+Outcomes.swift`).
package struct PendingOutcomeRun: Hashable {
    package var first: Int64
    package var outcomes: [ConsumedOutcome]

    package init(first: Int64, outcomes: [ConsumedOutcome] = []) {
        self.first = first
        self.outcomes = outcomes
    }

    /// The last mutationId the run holds (`first - 1` when it holds none).
    package var last: Int64 { first + Int64(outcomes.count) - 1 }

    /// The outcome of `mutationId`, when this run holds it.
    package func outcome(_ mutationId: Int64) -> ConsumedOutcome? {
        guard mutationId >= first, mutationId - first < Int64(outcomes.count) else { return nil }
        return outcomes[Int(mutationId - first)]
    }

    /// Keeps `outcome` for `mutationId`, the one after the run's last (or one the run holds, decided again).
    mutating func keep(_ outcome: ConsumedOutcome, mutationId: Int64) {
        precondition(mutationId >= first && mutationId <= last + 1,
                     "a client's outcomes are kept for consecutive mutationIds, as MutationRules consumes them")
        if mutationId == last + 1 {
            outcomes.append(outcome)
        } else {
            outcomes[Int(mutationId - first)] = outcome
        }
    }

    /// This run followed by `later`, outcomes kept after it (a later decision of a mutationId this run holds
    /// replaces it, as ``keep(_:mutationId:)`` does); `nil` when `later` starts neither inside this run nor right
    /// after it.
    package func joined(with later: PendingOutcomeRun) -> PendingOutcomeRun? {
        // Compared without `last + 1`, which a run read from a damaged row (last at Int64.max) would overflow.
        let (offset, overflow) = later.first.subtractingReportingOverflow(first)
        guard !overflow, offset >= 0, offset <= Int64(outcomes.count) else { return nil }
        return PendingOutcomeRun(first: first, outcomes: Array(outcomes.prefix(Int(offset))) + later.outcomes)
    }

    /// The run's outcomes inside the window of a client whose last consumed mutationId is `last`, one by one.
    package func kept(clientId: UUID, last: Int64, retention: Int64) -> [LedgerSnapshot.KeptOutcome] {
        outcomes.enumerated().compactMap { offset, outcome in
            let mutationId = first + Int64(offset)
            guard ConsumedOutcome.isKept(mutationId, last: last, retention: retention) else { return nil }
            return LedgerSnapshot.KeptOutcome(clientId: clientId, mutationId: mutationId, outcome: outcome)
        }
    }

    /// `kept` (grouped by client, each client's in mutationId order, as ``LedgerSnapshot/outcomes`` lists them)
    /// cut into runs of one client's consecutive mutationIds, each at most `maximumLength` long, in that order.
    package static func runs(of kept: [LedgerSnapshot.KeptOutcome],
                             maximumLength: Int) -> [(clientId: UUID, run: PendingOutcomeRun)] {
        var runs: [(clientId: UUID, run: PendingOutcomeRun)] = []
        var start = kept.startIndex
        while start < kept.endIndex {
            let clientId = kept[start].clientId
            var end = start + 1
            while end < kept.endIndex, end - start < maximumLength, kept[end].clientId == clientId,
                  kept[end].mutationId == kept[end - 1].mutationId + 1 {
                end += 1
            }
            runs.append((clientId, PendingOutcomeRun(first: kept[start].mutationId, outcomes: kept[start..<end].map(\.outcome))))
            start = end
        }
        return runs
    }
}

/// The runs a transaction keeps, one per client, in the order the clients first kept an outcome.
package struct PendingOutcomeRuns {
    private var runs: [UUID: PendingOutcomeRun] = [:]
    /// The clients that kept outcomes, in the order they first did.
    package private(set) var clients: [UUID] = []
    /// The client whose run ``keep(_:clientId:mutationId:)`` appended to last, and where it is in ``runs``
    /// (`nil` after an insertion or a clear, which move indices): a push keeps its outcomes one after another,
    /// so the run found for the one before is the one, without hashing the client again.
    private var lastRun: (clientId: UUID, index: Dictionary<UUID, PendingOutcomeRun>.Index)?

    package init() {}

    package subscript(clientId: UUID) -> PendingOutcomeRun? { runs[clientId] }

    package var isEmpty: Bool { clients.isEmpty }

    /// Keeps `outcome` for the client's `mutationId` (``PendingOutcomeRun/keep(_:mutationId:)``).
    package mutating func keep(_ outcome: ConsumedOutcome, clientId: UUID, mutationId: Int64) {
        let found = lastRun.flatMap { $0.clientId == clientId ? $0.index : nil } ?? runs.index(forKey: clientId)
        guard let index = found else {
            runs[clientId] = PendingOutcomeRun(first: mutationId, outcomes: [outcome])
            clients.append(clientId)
            lastRun = nil
            return
        }
        lastRun = (clientId, index)
        runs.values[index].keep(outcome, mutationId: mutationId)
    }

    package mutating func removeAll() {
        runs.removeAll(keepingCapacity: true)
        clients.removeAll(keepingCapacity: true)
        lastRun = nil
    }
}

/// A client's open run: its newest outcomes, held by its `clients` row rather than appended to `outcome_runs`
/// (`SQLiteLedgerStore+Outcomes.swift`, `PostgresLedgerStore+Outcomes.swift`), with their packed bytes
/// (``PackedOutcomeRun``) as the row holds them.
struct OpenOutcomeRun {
    /// Outcomes an open run holds at most: a single push's outcome then costs a row of the log once in this many
    /// pushes, and the `clients` row, rewritten for every push, stays a few dozen bytes.
    static let maximumCount = 32
    /// Packed bytes an open run holds at most (rejections carry their message).
    static let maximumBytes = 256

    var run: PendingOutcomeRun
    var bytes: [UInt8]

    /// Whether a run of `count` outcomes packed in `bytes` bytes may stay open.
    static func holds(count: Int, bytes: Int) -> Bool { count <= maximumCount && bytes <= maximumBytes }

    /// What a commit makes of a client's committed open run `open` (`nil`: none) and the outcomes `kept` it kept in
    /// the transaction, the one rule both stores follow: `kept` joins the open run (``PendingOutcomeRun/joined(with:)``);
    /// when it cannot (it starts past a gap in the client's mutationIds, or before the open run), the open run is
    /// appended as it is and `kept` alone goes on. What results stays open while it ``holds(count:bytes:)``; past
    /// that it is appended too and the row holds no open run.
    /// - Returns: the runs to append to `outcome_runs`, oldest first, each with its packed bytes, and the open run
    ///   the client's row holds after the commit.
    static func committing(_ kept: PendingOutcomeRun, after open: OpenOutcomeRun?) -> (appended: [OpenOutcomeRun], open: OpenOutcomeRun?) {
        var appended: [OpenOutcomeRun] = []
        let next: OpenOutcomeRun
        if let open, kept.first &- 1 == open.run.last {
            // The usual case, the outcomes after the open run's: its packed bytes stay as they are, and only the
            // new outcomes are packed, after them. Re-packing the whole open run at every push made the PostgreSQL
            // store's daemon spend 535,279 instructions per single push (callgrind) where it spent 526,863 to
            // insert the push's own run row; packing only the new ones, about 531,000-533,000.
            var bytes = open.bytes
            PackedOutcomeRun.encode(kept.outcomes, appendingTo: &bytes,
                                    previousSeq: PackedOutcomeRun.lastAppliedSeq(open.run.outcomes))
            next = OpenOutcomeRun(run: PendingOutcomeRun(first: open.run.first, outcomes: open.run.outcomes + kept.outcomes),
                                  bytes: bytes)
        } else {
            var run = kept
            if let open {
                if let joined = open.run.joined(with: kept) { run = joined } else { appended.append(open) }
            }
            next = OpenOutcomeRun(run: run, bytes: PackedOutcomeRun.encode(run.outcomes))
        }
        guard holds(count: next.run.outcomes.count, bytes: next.bytes.count) else { return (appended + [next], nil) }
        return (appended, next)
    }
}
