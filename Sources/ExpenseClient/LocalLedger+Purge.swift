import ExpenseCore
import ExpenseProtocol
import Foundation

/// After a heal's pull from 0 (Protocol.md §5.9): a server copy the daemon no longer returns, at or below the
/// heal point, is a record whose tombstone a compaction purged. The daemon still holds that deletion, and
/// decides every later change of the id against it:
/// - a copy that is that tombstone already stays the server copy, at its version (a `resolve --mine` of a
///   conflict with it restores it there);
/// - a live copy was deleted on the daemon at a version this cache never saw: it becomes a tombstone of version
///   0 here, and a local change of it still waiting is not lost: it is queued again as a create of the whole
///   expense, which the daemon answers with a conflict carrying the tombstone (edited here, deleted there).
extension LocalLedger {
    /// Applies the rule to every server copy whose id is not in `pulled`, the ids the heal's pull returned.
    /// - Returns: how many copies were gone from the daemon.
    package func dropPurged(pulled: Set<UUID>, point: Int64) throws -> Int {
        try store.write { transaction in
            var gone = 0
            for copy in try transaction.serverCopies(seqAbove: 0) where copy.seq <= point && copy.version > 0 {
                let id = copy.expense.id
                guard !pulled.contains(id), !copy.deleted else { continue }
                gone += 1
                let entries = try transaction.pending(for: id)
                let waiting = entries.filter { $0.state == .unsent || $0.state == .rejected }
                try transaction.putServerCopy(Record(expense: copy.expense, version: 0, seq: 0, deleted: true))
                if let last = waiting.last, last.type == .put, !copy.deleted || last.baseVersion == copy.version {
                    var full = copy.expense.draft.merging(last.fields)
                    full.id = nil
                    for entry in entries { try transaction.removePending(position: entry.position) }
                    try transaction.appendPending(PendingMutation(type: .put, id: id, baseVersion: 0, fields: full))
                } else {
                    for entry in entries { try transaction.removePending(position: entry.position) }
                }
                try refresh(id, kind: .expense, in: transaction)
            }
            return gone
        }
    }
}
