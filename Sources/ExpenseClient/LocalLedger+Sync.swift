import ExpenseCore
import ExpenseProtocol
import Foundation

/// The sync steps that change the local store, each one transaction, so a sync interrupted anywhere leaves a
/// consistent store that the next sync continues from.
extension LocalLedger {
    /// After `hello`: entries numbered at or below `lastMutationId` were consumed by the daemon but their answer
    /// was lost (state ``PendingMutation/State/unknown``, checked after the pull); numbered entries above it never
    /// arrived and become unsent again, so numbering restarts at `lastMutationId + 1` with no gap.
    /// A cache synced with another server or ledger is refused (``SyncError/otherLedger(synced:asked:)``): the two
    /// ledgers' records would mix silently. The queue is untouched.
    package func beginSession(lastMutationId: Int64, remote: String) throws {
        try store.write { transaction in
            switch try transaction.metaValue(.syncedLedger) {
            case nil:
                try transaction.setMetaValue(remote, for: .syncedLedger)
                try transaction.setMetaValue("0", for: .pullCursor)
            case let synced? where synced != remote:
                throw SyncError.otherLedger(synced: synced, asked: remote)
            default:
                break
            }
            var position: Int64 = 0
            while true {
                let page = try transaction.pending(after: position, limit: 1000)
                guard let lastEntry = page.last else { break }
                position = lastEntry.position
                for var entry in page where entry.state == .sent || entry.state == .unknown {
                    if let id = entry.mutationId, id <= lastMutationId {
                        entry.state = .unknown
                    } else {
                        entry.state = .unsent
                        entry.mutationId = nil
                    }
                    try transaction.updatePending(entry)
                }
            }
            try transaction.setMetaValue(String(lastMutationId), for: .lastMutationId)
        }
    }

    /// Numbers and marks sent the next batch (at most `limit` entries, the first unsent entry of each expense
    /// whose earlier entries are all answered), persisting the numbers before anything is written to the socket.
    /// - Returns: the batch, in `mutationId` order; empty when nothing can be sent now.
    package func nextBatch(limit: Int = PushRequest.maximumMutations) throws -> [PendingMutation] {
        try store.write { transaction in
            var nextId = (try transaction.metaValue(.lastMutationId).flatMap { Int64($0) } ?? 0) + 1
            var seen = Set<UUID>()
            var batch: [PendingMutation] = []
            var position: Int64 = 0
            scan: while batch.count < limit {
                let page = try transaction.pending(after: position, limit: 1000)
                guard let lastEntry = page.last else { break }
                position = lastEntry.position
                for var entry in page {
                    guard seen.insert(entry.id).inserted else { continue }
                    guard entry.state == .unsent else { continue }
                    entry.mutationId = nextId
                    entry.state = .sent
                    nextId += 1
                    try transaction.updatePending(entry)
                    batch.append(entry)
                    if batch.count == limit { break scan }
                }
            }
            if !batch.isEmpty { try transaction.setMetaValue(String(nextId - 1), for: .lastMutationId) }
            return batch
        }
    }

    /// What one push's answers did.
    package struct PushOutcome: Sendable, Equatable {
        package var applied = 0
        package var conflicts = 0
        package var rejected = 0
        /// A `mutation_gap`: numbering went wrong; the session must start over with `hello`.
        package var gap = false
    }

    /// Applies the daemon's answers to a batch from ``nextBatch(limit:)``.
    package func apply(results: [MutationResult], for batch: [PendingMutation]) throws -> PushOutcome {
        let byId = Dictionary(batch.compactMap { entry in entry.mutationId.map { ($0, entry) } }, uniquingKeysWith: { a, _ in a })
        var outcome = PushOutcome()
        try store.write { transaction in
            for result in results {
                guard var entry = byId[result.mutationId] else { continue }
                switch result.status {
                case .applied(let version, let seq):
                    outcome.applied += 1
                    try transaction.removePending(position: entry.position)
                    let copy = try transaction.serverCopy(id: entry.id)
                    if (copy?.version ?? 0) <= version {
                        var draft = copy?.expense.draft ?? ExpenseDraft(id: entry.id.uuidString.lowercased())
                        if entry.type == .put { draft = draft.merging(entry.fields) }
                        if let expense = try? ExpenseValidator.validate(draft) {
                            try transaction.putServerCopy(Record(expense: expense, version: version, seq: max(seq, copy?.seq ?? 0),
                                                                 deleted: entry.type == .delete))
                        }
                    }
                    try rebase(entry.id, from: entry.baseVersion, to: version, in: transaction)
                case .duplicate:
                    entry.state = .unknown
                    try transaction.updatePending(entry)
                case .conflict(let current):
                    outcome.conflicts += 1
                    try transaction.removePending(position: entry.position)
                    try transaction.putServerCopy(current)
                    var conflict = Conflict(id: entry.id, mine: entry.type, mineBaseVersion: entry.baseVersion,
                                            mineFields: entry.fields, theirs: current)
                    if let earlier = try transaction.conflict(id: entry.id), earlier.mine == .put, entry.type == .put {
                        conflict.mineFields = earlier.mineFields.merging(entry.fields)
                        conflict.mineBaseVersion = earlier.mineBaseVersion
                    }
                    try transaction.putConflict(conflict)
                case .rejected(let rejection):
                    if rejection.reason == "mutation_gap" {
                        outcome.gap = true
                        entry.state = .unsent
                        entry.mutationId = nil
                    } else {
                        outcome.rejected += 1
                        entry.state = .rejected
                        entry.rejection = rejection
                    }
                    try transaction.updatePending(entry)
                }
                try refresh(entry.id, in: transaction)
            }
        }
        return outcome
    }

    /// Entries of `id` made on top of a change that is now applied at `version` are based on that version.
    private func rebase(_ id: UUID, from baseVersion: Int64, to version: Int64, in transaction: any StoreTransaction) throws {
        for var later in try transaction.pending(for: id) where later.baseVersion == baseVersion && later.state != .sent {
            later.baseVersion = version
            try transaction.updatePending(later)
        }
    }

    /// Applies one pulled page: each record becomes the server copy; the local view is that copy with any
    /// queued entries on top (their fields and base versions are kept: the daemon merges disjoint fields).
    /// An open conflict's `theirs` follows the server.
    ///
    /// With nothing queued and no open conflict (a first sync, or any sync of a client with no local changes)
    /// every record is stored as is, without reading anything back (``StoreTransaction/putSettled(_:)``).
    package func apply(pulled changes: [Record], cursor: Int64) throws {
        try store.write { transaction in
            if try transaction.isSettled() {
                try transaction.putSettled(changes)
                try transaction.setMetaValue(String(cursor), for: .pullCursor)
                return
            }
            for record in changes {
                if let copy = try transaction.serverCopy(id: record.expense.id), copy.version > record.version { continue }
                try transaction.putServerCopy(record)
                if var conflict = try transaction.conflict(id: record.expense.id) {
                    conflict.theirs = record
                    if conflict.kind == .deletedOnBothSides {
                        try transaction.removeConflict(id: conflict.id)  // both sides agree: nothing to settle
                    } else {
                        try transaction.putConflict(conflict)
                    }
                }
                try refresh(record.expense.id, in: transaction)
            }
            try transaction.setMetaValue(String(cursor), for: .pullCursor)
        }
    }

    /// After the pull: each entry whose answer was lost is dropped when the server copy holds what it set
    /// (it was applied), else queued again unchanged, so the daemon answers for it once more (applied, or a
    /// conflict that is kept): a change is never dropped silently.
    package func settleUnknown() throws {
        try store.write { transaction in
            var position: Int64 = 0
            while true {
                let page = try transaction.pending(after: position, limit: 1000)
                guard let lastEntry = page.last else { break }
                position = lastEntry.position
                for var entry in page where entry.state == .unknown {
                    let copy = try transaction.serverCopy(id: entry.id)
                    if let copy, Self.holds(copy, entry) {
                        try transaction.removePending(position: entry.position)
                        try rebase(entry.id, from: entry.baseVersion, to: copy.version, in: transaction)
                    } else {
                        entry.state = .unsent
                        entry.mutationId = nil
                        try transaction.updatePending(entry)
                    }
                    try refresh(entry.id, in: transaction)
                }
            }
        }
    }

    /// Whether the server's record shows the effect of `entry`.
    static func holds(_ record: Record, _ entry: PendingMutation) -> Bool {
        switch entry.type {
        case .delete: return record.deleted
        case .put:
            guard !record.deleted else { return false }
            let expense = record.expense
            let fields = entry.fields
            return (fields.amount.map { $0 == expense.amount } ?? true)
                && (fields.currency.map { $0 == expense.currency.code } ?? true)
                && (fields.category.map { $0 == expense.category } ?? true)
                && (fields.date.map { $0 == expense.date.description } ?? true)
                && (fields.note.map { $0 == expense.note } ?? true)
        }
    }

    /// Whether some entry waits to be sent (a read, no transaction).
    package func hasUnsent() throws -> Bool { try store.hasUnsent() }

    /// The cursor to pull from.
    package func pullCursor() throws -> Int64 { try store.metaValue(.pullCursor).flatMap { Int64($0) } ?? 0 }

    /// Records a successful sync.
    package func finishSync(at date: Date = Date()) throws {
        try store.setMetaValue(date.formatted(.iso8601), for: .lastSyncTime)
    }
}
