import Dispatch
import ExpenseCore
import FoundationEssentials
import SystemKit

/// The ledgers of a compaction round (`expensed serve --compact-after`) that were not open when it began: each
/// is compacted through its storage, one after another on a Dispatch worker, unless a request opens it first —
/// then the directory queues its compaction on the ledger's own thread before the ledger is served, so the first
/// request sees a compacted ledger either way. Opening a ledger whose storage is being compacted waits for that
/// to end (opening never runs on the network loop's thread).
final class ClosedLedgerCompactions: @unchecked Sendable {
    /// A round's cutoff, and where its log lines go.
    struct Round: Sendable {
        let cutoff: Int64
        let keepDays: Int
        let done: @Sendable (String) -> Void
    }

    /// Guards everything below; waited on by ``opened(_:)`` while its ledger is being compacted.
    private let condition = ThreadCondition()
    private var waiting: Set<String> = []
    private var running: Set<String> = []
    private var round: Round?

    /// Begins a round over `names` (the ledgers not open now) and compacts each with `compact` on a Dispatch
    /// worker, skipping those a request opened meanwhile (``opened(_:)`` hands their compaction to the directory).
    func begin(_ names: [String], _ round: Round,
               compact: @escaping @Sendable (String, Int64) throws -> (horizon: Int64, tombstones: Int, entries: Int)) {
        condition.withLock {
            self.round = round
            waiting.formUnion(names)
        }
        DispatchQueue.global(qos: .utility).async {
            for name in names {
                let taken = self.condition.withLock {
                    guard self.waiting.remove(name) != nil else { return false }
                    self.running.insert(name)
                    return true
                }
                guard taken else { continue }
                do {
                    round.done(LedgerDirectory.compactedLine(name, try compact(name, round.cutoff), keepDays: round.keepDays))
                } catch {
                    round.done("compaction of ledger \(DisplayText.quoted(name)) failed: \(error)")
                }
                self.condition.withLock {
                    self.running.remove(name)
                    self.condition.broadcast()
                }
            }
        }
    }

    /// Called when `name` has been opened, before it is served: waits while its storage is being compacted, and
    /// returns the round when it was still waiting for compaction (the caller queues it on the ledger's thread).
    func opened(_ name: String) -> Round? {
        condition.withLock {
            while running.contains(name) { condition.wait() }
            return waiting.remove(name) != nil ? round : nil
        }
    }
}
