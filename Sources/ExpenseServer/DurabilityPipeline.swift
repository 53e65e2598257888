/// The commit → sync → acknowledge pipeline of a ledger whose COMMIT does not sync (docs/reliability.md §1):
/// which committed groups wait for which sync, when to start one, and which groups an ended sync acknowledges
/// or fails. Pure: no threads, no I/O; ``Ledger`` performs the actions (its `Ledger+Durability.swift`).
///
/// Groups are numbered in commit order. A sync started after group n committed makes groups 1...n durable. At
/// most one background sync is in flight; groups committed meanwhile wait for the next one, which starts when
/// it ends (one sync covers all of them). The ledger's thread may also sync by itself before a read or a close
/// (``syncedInline(succeeded:)``): that covers every group committed so far.
///
/// - Important: A group is acknowledged only by a successful sync that started after its COMMIT returned, and
///   groups are acknowledged in commit order. After a failed sync nothing is ever acknowledged again: every
///   waiting group fails, and so does every later one (``failed``).
package struct DurabilityPipeline<Group> {
    /// What the ledger does next.
    package enum Action: Equatable, Sendable {
        case none
        /// Start a background sync; it covers groups 1...`through`.
        case startSync(through: Int)
    }

    /// What an ended sync settled.
    package struct Outcome {
        /// Now durable: answer them, in this order.
        package var acknowledged: [Group] = []
        /// Not known durable and never will be: answer them with the failure.
        package var failed: [Group] = []
        package var next: Action = .none
    }

    /// Groups committed so far (and other commits, ``noteWrite()``).
    package private(set) var committed = 0
    /// Commits known durable.
    package private(set) var durable = 0
    /// The commits the background sync in flight covers, if one is.
    package private(set) var syncingThrough: Int?
    /// A sync failed: the file may not hold what the ledger's connection shows.
    package private(set) var failed = false
    private var waiting: [(number: Int, group: Group)] = []

    package init() {}

    /// Whether something committed is not yet known durable.
    package var needsSync: Bool { durable < committed }

    /// Groups waiting for a sync.
    package var waitingCount: Int { waiting.count }

    /// A group committed. Returns ``Action/startSync(through:)`` when no sync is in flight.
    package mutating func commit(_ group: Group) -> Action {
        precondition(!failed, "the ledger refuses writes after a failed sync")
        committed += 1
        waiting.append((committed, group))
        return startIfIdle()
    }

    /// A commit with nobody waiting for it (compaction, tokens): the next sync covers it.
    package mutating func noteWrite() {
        committed += 1
    }

    /// The background sync that covered 1...`through` ended.
    package mutating func backgroundSyncEnded(through: Int, succeeded: Bool) -> Outcome {
        precondition(syncingThrough == through, "one background sync at a time")
        syncingThrough = nil
        var outcome = settle(through: through, succeeded: succeeded)
        outcome.next = startIfIdle()
        return outcome
    }

    /// The ledger's thread synced by itself, after every commit so far (a background sync may still be in
    /// flight: it then covers nothing new and its end acknowledges nothing).
    package mutating func syncedInline(succeeded: Bool) -> Outcome {
        settle(through: committed, succeeded: succeeded)
    }

    private mutating func settle(through: Int, succeeded: Bool) -> Outcome {
        var outcome = Outcome()
        guard succeeded, !failed else {
            failed = true
            outcome.failed = waiting.map(\.group)
            waiting.removeAll()
            return outcome
        }
        durable = max(durable, through)
        let done = waiting.prefix { $0.number <= through }
        outcome.acknowledged = done.map(\.group)
        waiting.removeFirst(done.count)
        return outcome
    }

    private mutating func startIfIdle() -> Action {
        guard syncingThrough == nil, !failed, durable < committed, !waiting.isEmpty else { return .none }
        syncingThrough = committed
        return .startSync(through: committed)
    }
}
