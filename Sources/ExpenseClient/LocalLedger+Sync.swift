import ExpenseCore
import ExpenseProtocol
import Foundation

/// The sync steps that change the local store, each one transaction, so a sync interrupted anywhere leaves a
/// consistent store that the next sync continues from.
extension LocalLedger {
    /// After `hello`: checks and records the cache's binding and notes a heal when the daemon's history was
    /// replaced (``LedgerBinding/greeted(_:at:)``), then settles the numbering: entries numbered at or below
    /// `lastMutationId` were consumed by the daemon but their answer was lost (state ``PendingMutation/State/unknown``,
    /// checked after the pull); numbered entries above it never arrived (or a restored daemon forgot them) and become
    /// unsent again, so numbering restarts at `lastMutationId + 1` with no gap.
    /// - Throws: ``SyncError/otherLedger(synced:asked:)`` before anything is changed when the daemon serves another
    ///   ledger than the one this cache holds: the two ledgers' records would mix silently.
    package func beginSession(_ hello: HelloResult, remote: String) throws {
        try store.write { transaction in
            let binding = try LedgerBinding.load(from: transaction).greeted(hello, at: remote)
            try binding.save(to: transaction)
            if case .ledger(let ledgerId, _) = binding.identity { try rekeyOccurrences(to: ledgerId, in: transaction) }
            // The ledger's currency is the default of a cache whose person set none (`config set` wins).
            if try transaction.metaValue(.ledgerCurrency) != hello.currency.code {
                try transaction.setMetaValue(hello.currency.code, for: .ledgerCurrency)
            }
            if try transaction.metaValue(.tokenRole) != hello.role?.rawValue {
                try transaction.setMetaValue(hello.role?.rawValue, for: .tokenRole)
            }
            if try transaction.metaValue(.tokenName) != hello.tokenName {
                try transaction.setMetaValue(hello.tokenName, for: .tokenName)
            }
            try renumber(hello.lastMutationId, in: transaction)
        }
    }

    private func renumber(_ lastMutationId: Int64, in transaction: any StoreTransaction) throws {
        try transaction.forEachPending { entry in
            guard entry.state == .sent || entry.state == .unknown else { return true }
            var entry = entry
            if let id = entry.mutationId, id <= lastMutationId {
                entry.answerLost()
            } else {
                entry.reopen()
            }
            try transaction.updatePending(entry)
            return true
        }
        try transaction.setMetaValue(String(lastMutationId), for: .lastMutationId)
    }

    /// Numbers and marks sent the next batch, persisting the numbers before anything is written to the socket:
    /// at most `limit` entries (the first unsent entry of each record whose earlier entries are all answered)
    /// whose push line, envelope included, stays within `maximumLineLength` bytes (the daemon's `maxLine`).
    ///
    /// An entry whose push line alone would pass `maximumLineLength` is not numbered: it is marked rejected
    /// here with ``MutationRejection/tooLarge(bytes:limit:)`` and the entries after it go on, so numbering stays
    /// consecutive (no mutationId is spent on a change that is never sent) and one change never blocks the rest.
    /// Such an entry is looked at again by every batch and goes out as soon as it fits (a shorter edit, or a
    /// daemon with a larger limit).
    /// - Returns: the batch, in `mutationId` order; empty when nothing can be sent now.
    ///
    /// Entries of a kind besides expenses that is not in `kinds` (one the daemon does not serve) are left
    /// unnumbered in the queue for a daemon that does.
    package func nextBatch(limit: Int = PushRequest.maximumMutations, maximumLineLength: Int = HelloResult.assumedMaxLine,
                           kinds: Set<RecordKind> = Set(RecordKind.additional)) throws -> [PendingMutation] {
        try store.write { transaction in
            var nextId = (try transaction.metaValue(.lastMutationId).flatMap { Int64($0) } ?? 0) + 1
            var seen = Set<UUID>()
            var batch: [PendingMutation] = []
            var lineBytes = PushRequest.envelopeBytes
            guard limit > 0 else { return [] }
            try transaction.forEachPending { entry in
                guard seen.insert(entry.id).inserted, entry.kind == .expense || kinds.contains(entry.kind) else { return true }
                guard entry.state == .unsent || (entry.state == .rejected && entry.rejection?.isTooLarge == true) else { return true }
                var entry = entry
                let bytes = PushRequest.encodedBytes(of: entry.mutation(mutationId: nextId))
                if PushRequest.envelopeBytes + bytes > maximumLineLength {
                    if entry.state != .rejected {
                        entry.reject(.tooLarge(bytes: PushRequest.envelopeBytes + bytes, limit: maximumLineLength))
                        try transaction.updatePending(entry)
                    }
                    return true
                }
                if lineBytes + bytes > maximumLineLength { return false }
                lineBytes += bytes
                entry.send(as: nextId)
                nextId += 1
                try transaction.updatePending(entry)
                batch.append(entry)
                return batch.count < limit
            }
            if !batch.isEmpty { try transaction.setMetaValue(String(nextId - 1), for: .lastMutationId) }
            return batch
        }
    }

    /// The next page of entries whose answer was lost (state ``PendingMutation/State/unknown``, numbered at or
    /// below `hello`'s `lastMutationId`) after queue position `position`, in queue order: the session sends them
    /// again with their own ids, and each `duplicate` answer tells what became of it (Protocol.md §5.2).
    package func unanswered(after position: Int64, limit: Int = PushRequest.maximumMutations) throws -> [PendingMutation] {
        try store.write { transaction in
            var found: [PendingMutation] = []
            guard limit > 0 else { return found }
            try transaction.forEachPending(after: position) { entry in
                if entry.state == .unknown && entry.mutationId != nil { found.append(entry) }
                return found.count < limit
            }
            return found
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

    /// Applies the daemon's answers to a batch from ``nextBatch(limit:maximumLineLength:)``.
    package func apply(results: [MutationResult], for batch: [PendingMutation]) throws -> PushOutcome {
        let byId = Dictionary(batch.compactMap { entry in entry.mutationId.map { ($0, entry) } }, uniquingKeysWith: { a, _ in a })
        var outcome = PushOutcome()
        try store.write { transaction in
            for result in results {
                guard var entry = byId[result.mutationId] else { continue }
                var status = result.status
                // A lost answer asked again: what the daemon decided then is the answer (Protocol.md §5.2).
                if case .duplicate(let original?) = status { status = original.status }
                switch status {
                case .applied(let version, let seq):
                    outcome.applied += 1
                    try transaction.removePending(position: entry.position)
                    // A fresh answer carries the record as stored; a `duplicate`'s original never does.
                    try storeApplied(entry, version: version, seq: seq, record: result.record, in: transaction)
                    try rebase(after: entry, to: version, applied: true, in: transaction)
                case .dataConflict(let current) where entry.kind != .expense:
                    if try keepDataConflict(entry, theirs: current, in: transaction) { outcome.conflicts += 1 }
                case .duplicate, .dataConflict:
                    // Consumed, but the daemon no longer keeps its outcome: settled against the pull. (A conflict
                    // of the other shape never answers a change of this kind; if one did, the pull settles it.)
                    entry.answerLost()
                    try transaction.updatePending(entry)
                case .conflict where entry.kind != .expense:
                    entry.answerLost()
                    try transaction.updatePending(entry)
                case .conflict(let current):
                    try transaction.removePending(position: entry.position)
                    if let copy = try transaction.serverCopy(id: entry.id), copy.version > current.version {} else {
                        try transaction.putServerCopy(current)
                    }
                    // What the conflict shows and `--mine` re-submits is the newest local intent: later changes
                    // of the expense made while this one was on its way fold into it (a delete supersedes it).
                    let mine = try foldLater(into: entry, in: transaction)
                    if mine.type == .delete && current.deleted {
                        // Deleted on both sides: nothing is left to decide.
                        try transaction.removeConflict(id: entry.id)
                        break
                    }
                    outcome.conflicts += 1
                    var conflict = Conflict(id: entry.id, mine: mine.type, mineBaseVersion: mine.baseVersion,
                                            mineFields: mine.fields, theirs: current)
                    if let earlier = try transaction.conflict(id: entry.id), earlier.mine == .put, mine.type == .put {
                        conflict.mineFields = earlier.mineFields.merging(mine.fields)
                        conflict.mineBaseVersion = earlier.mineBaseVersion
                    }
                    try transaction.putConflict(conflict)
                case .rejected(let rejection):
                    if rejection.reason == "mutation_gap" {
                        outcome.gap = true
                        entry.reopen()
                        try transaction.updatePending(entry)
                    } else {
                        // A later change of the expense (the newest intent) goes out in its place, folded in;
                        // with none, the rejection stays shown.
                        var folded = try foldLater(into: entry, in: transaction)
                        if folded == entry {
                            outcome.rejected += 1
                            folded.reject(rejection)
                        } else {
                            folded.reopen()
                        }
                        try transaction.updatePending(folded)
                    }
                }
                try refresh(entry.id, kind: entry.kind, in: transaction)
            }
        }
        return outcome
    }

    /// Moves the base of the entries queued after `earlier` (same expense, same base) to `version`, where
    /// `earlier` is now applied (`applied`: the daemon said so, at `version`; else the server copy at `version`
    /// shows its effect) — but only over changes the person saw (Protocol.md §7.4, "Pending changes"):
    ///
    /// - `version` is the next after the base and `earlier` was applied there: the only change in between is
    ///   `earlier`'s own; or
    /// - every field the later `put` sets was set by `earlier` too: the daemon kept `earlier`'s values for them
    ///   (else `earlier` would have conflicted), which is what the person saw.
    ///
    /// Otherwise the entry keeps the version the person saw, so the daemon checks it against every change since
    /// (one that skipped someone else's change to the same field would overwrite it silently).
    ///
    /// A field whose concurrent edits the daemon merges (the tags, ``ExpenseCore/ExpenseField/mergesConcurrentEdits``)
    /// may hold another value than `earlier` sent: the later entry is moved only when the server copy at `version`
    /// holds `earlier`'s value of it. Otherwise it keeps its base and the daemon merges it again, over the same
    /// base, keeping what the other side changed (moved, it would replace the merged tags with its own).
    private func rebase(after earlier: PendingMutation, to version: Int64, applied: Bool,
                        in transaction: any StoreTransaction) throws {
        for var later in try transaction.pending(for: earlier.id)
        where later.baseVersion == earlier.baseVersion && later.state != .sent && later.position != earlier.position {
            let onlyOwnChange = applied && version == earlier.baseVersion + 1
            let sameFieldSet = earlier.type == .put && later.type == .put && later.setFieldNames.isSubset(of: earlier.setFieldNames)
            let sameFields = try sameFieldSet && keptAsSent(earlier, fieldsSetBy: later, at: version, in: transaction)
            guard onlyOwnChange || sameFields else { continue }
            later.baseVersion = version
            try transaction.updatePending(later)
        }
    }

    /// Whether the server copy at `version` holds `earlier`'s value of every field `later` sets that the daemon
    /// merges (the tags), so that it kept what `earlier` sent for it; always for a change of another kind.
    private func keptAsSent(_ earlier: PendingMutation, fieldsSetBy later: PendingMutation, at version: Int64,
                            in transaction: any StoreTransaction) throws -> Bool {
        guard later.kind == .expense else { return true }
        let merging = ExpenseField.values.filter { $0.mergesConcurrentEdits && ExpenseFields.names(in: later.fields).contains($0.rawValue) }
        if merging.isEmpty { return true }
        guard let copy = try transaction.serverCopy(id: earlier.id), copy.version == version, !copy.deleted else { return false }
        return merging.allSatisfy { $0.matches(earlier.fields, copy.expense) == true }
    }

    /// `entry` with the unsent (or rejected) entries of the same expense queued after it folded in, which are
    /// removed from the queue: later fields win, a later delete supersedes, a later put after a delete is that
    /// put. The base stays `entry`'s (the oldest, so the daemon checks every change since).
    func foldLater(into entry: PendingMutation, in transaction: any StoreTransaction) throws -> PendingMutation {
        var folded = entry
        for later in try transaction.pending(for: entry.id)
        where later.position > entry.position && (later.state == .unsent || later.state == .rejected) {
            folded.absorb(later)
            try transaction.removePending(position: later.position)
        }
        return folded
    }

    /// Applies one pulled page: each record becomes the server copy; the local view is that copy with any
    /// queued entries on top (their fields and base versions are kept: the daemon merges disjoint fields).
    /// An open conflict's `theirs` follows the server.
    ///
    /// With nothing queued and no open conflict (a first sync, or any sync of a client with no local changes)
    /// every record is stored as is, without reading anything back (``StoreTransaction/putSettled(_:)``).
    ///
    /// - Parameter produced: the `seq`s this client's own pushes were just answered with.
    /// - Returns: how many records are another client's change (not at a `seq` in `produced`) and were stored
    ///   (not older than the server copy held).
    /// - Parameter dataChanges: the page's budgets, rules and settings (``applyPulled(_:in:)``), stored in the
    ///   same transaction, so the one cursor moves over every kind at once.
    @discardableResult
    package func apply(pulled changes: [Record], dataChanges: [DataRecord] = [], cursor: Int64,
                       produced: Set<Int64> = []) throws -> Int {
        try store.write { transaction in
            var fromOthers = 0
            for record in dataChanges where try applyPulled(record, in: transaction) && !produced.contains(record.seq) {
                fromOthers += 1
            }
            if try transaction.isSettled() {
                try transaction.putSettled(changes)
                try transaction.setMetaValue(String(cursor), for: .pullCursor)
                return fromOthers + (produced.isEmpty ? changes.count : changes.count { !produced.contains($0.seq) })
            }
            for record in changes where try storeServerRecord(record, in: transaction) {
                if !produced.contains(record.seq) { fromOthers += 1 }
                try refresh(record.expense.id, kind: .expense, in: transaction)
            }
            try transaction.setMetaValue(String(cursor), for: .pullCursor)
            return fromOthers
        }
    }

    /// Stores an expense's record as the daemon sent it — pulled, or carried by an `applied` answer — as the
    /// server copy, unless the copy held is newer; an open conflict's `theirs` follows it. The caller refreshes
    /// the local view.
    /// - Returns: whether it was stored.
    func storeServerRecord(_ record: Record, in transaction: any StoreTransaction) throws -> Bool {
        let copy = try transaction.serverCopy(id: record.expense.id)
        // Older than the copy held. Within a history a later seq is always newer: an id whose tombstone a
        // compaction purged starts again at version 1 with a higher seq (Protocol.md §5.9).
        if let copy, copy.version > record.version, copy.seq >= record.seq { return false }
        try transaction.putServerCopy(record)
        if var conflict = try transaction.conflict(id: record.expense.id) {
            conflict.theirs = record
            if conflict.kind == .deletedOnBothSides {
                try transaction.removeConflict(id: conflict.id)  // both sides agree: nothing to settle
            } else {
                try transaction.putConflict(conflict)
            }
        }
        return true
    }

    /// After the pull: each entry whose answer was lost and whose outcome the daemon no longer keeps is dropped
    /// when the server copy holds what it set (it was applied), else queued again (with any later change of the
    /// expense folded in), so the daemon answers for it once more (applied, or a conflict that is kept): a change
    /// is never dropped silently.
    package func settleUnknown() throws {
        try store.write { transaction in
            try transaction.forEachPending { entry in
                if entry.state == .unknown {
                    if let version = try settledVersion(of: entry, in: transaction) {
                        try transaction.removePending(position: entry.position)
                        try rebase(after: entry, to: version, applied: false, in: transaction)
                    } else {
                        // Sent again as the newest local intent: later changes of the expense fold into it.
                        var again = try foldLater(into: entry, in: transaction)
                        again.reopen()
                        try transaction.updatePending(again)
                    }
                    try refresh(entry.id, kind: entry.kind, in: transaction)
                }
                return true
            }
        }
    }

    /// The version of the server copy of `entry`'s record when that copy shows `entry`'s effect; else `nil`.
    private func settledVersion(of entry: PendingMutation, in transaction: any StoreTransaction) throws -> Int64? {
        if entry.kind == .expense {
            guard let copy = try transaction.serverCopy(id: entry.id), Self.holds(copy, entry) else { return nil }
            return copy.version
        }
        guard let copy = try dataTables(transaction).dataServerCopy(id: entry.id), Self.holds(copy, entry) else { return nil }
        return copy.version
    }

    /// Whether the server's record shows the effect of `entry` (text compared by its bytes).
    static func holds(_ record: Record, _ entry: PendingMutation) -> Bool {
        // The daemon applies an occurrence's create to an id it has by leaving the record as it is (§10.4).
        if entry.ifAbsent { return true }
        switch entry.type {
        case .delete: return record.deleted
        case .put:
            guard !record.deleted else { return false }
            return ExpenseField.values.allSatisfy { $0.matches(entry.fields, record.expense) ?? true }
        }
    }

    /// Whether some entry of an expense or of one of `kinds` waits to be sent (a read, no transaction).
    package func hasUnsent(kinds: Set<RecordKind> = Set(RecordKind.additional)) throws -> Bool {
        try store.hasUnsent(kinds: kinds)
    }

    /// The cursor to pull from.
    package func pullCursor() throws -> Int64 { try store.metaValue(.pullCursor).flatMap { Int64($0) } ?? 0 }

    /// Records a successful sync (and forgets an earlier failure).
    package func finishSync(at date: Date = Date()) throws {
        try store.write { transaction in
            try transaction.setMetaValue(date.formatted(.iso8601), for: .lastSyncTime)
            try transaction.setMetaValue(nil, for: .lastSyncFailure)
        }
    }

    /// Records why a sync failed for a protocol reason, for `expense status`.
    package func recordSyncFailure(_ text: String) throws {
        try store.setMetaValue(text, for: .lastSyncFailure)
    }

    /// Why the last sync failed for a protocol reason, if it did and no sync has succeeded since.
    package func lastSyncFailure() throws -> String? { try store.metaValue(.lastSyncFailure) }
}
