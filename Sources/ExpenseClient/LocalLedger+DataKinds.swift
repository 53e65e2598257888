import ExpenseCore
import ExpenseProtocol
import Foundation

/// Budgets, recurring rules and settings (Protocol.md §10) in the one change pipeline: a change is validated by
/// ``ExpenseCore/LedgerDataValidator`` (the daemon runs it again), queued in the outbox by ``stage(_:in:)`` as
/// an expense change is, and its local view (`data_record`) is the server's copy with the queue on top.
extension LocalLedger {
    /// Sets the record `id` of `kind` to `fields` (validated first), queueing a create, a restore or an edit of
    /// the fields that changed; nothing is queued when nothing changed. Setting a record whose conflict is open
    /// is this machine's answer to it ("mine"): the conflict is closed and the change based on the daemon's side.
    /// With `journal`, the change is this machine's command of that name (`budget set`), which `expense undo
    /// --last` reverts (``change(_:journal:)``).
    /// - Returns: the stored fields.
    /// - Throws: ``ReadOnlyLedgerError`` on a viewer's cache (nothing is queued that could never be sent),
    ///   ``LedgerDataError``, ``LedgerDataCacheError/unsupportedStore(_:)`` for the JSON cache, ``StoreError``.
    @discardableResult
    package func put(_ kind: RecordKind, id: UUID, fields: LedgerDataFields, journal: String? = nil) throws -> LedgerDataFields {
        let validated = try LedgerDataValidator.validate(kind: kind, id: id, fields: fields)
        try change([.put(kind, id: id, fields: validated)], journal: journal)
        return validated
    }

    /// Deletes the record `id` (a budget, rule or setting) locally and queues the delete; `false` when there is
    /// no live record with that id. With `journal`, as ``put(_:id:fields:journal:)``.
    /// - Throws: ``ReadOnlyLedgerError`` on a viewer's cache, ``StoreError``.
    package func deleteRecord(id: UUID, journal: String? = nil) throws -> Bool {
        try !change([.delete(id: id)], journal: journal).isEmpty
    }

    /// Queues a put of the validated `fields` of `id`: every field when the view has no live record, else the
    /// fields that differ from it, money sent whole (Protocol.md §7.4's client rule).
    func stageData(_ kind: RecordKind, id: UUID, fields: LedgerDataFields, in transaction: any StoreTransaction) throws {
        let view = try dataTables(transaction).dataView(id: id)
        var sent = fields
        if let view, !view.deleted {
            sent = fields.filter { name, value in !(view.fields[name].map { $0.same(as: value) } ?? false) }
            if sent.keys.contains(where: { LedgerDataValidator.conflictField($0) == "money" }) {
                sent.merge(fields.filter { LedgerDataValidator.conflictField($0.key) == "money" }) { new, _ in new }
            }
            if sent.isEmpty && Set(view.fields.keys) == Set(fields.keys) { return }
        }
        try stage(PendingMutation(type: .put, kind: kind, id: id, baseVersion: 0, data: sent), in: transaction)
    }

    /// Recomputes the local view of the record `id` of `kind`: its server copy with its queue entries applied in
    /// order (a put's fields over the record's, a delete marking it deleted); a record with neither is removed.
    func refreshData(_ id: UUID, kind: RecordKind, in transaction: any StoreTransaction) throws {
        let tables = try dataTables(transaction)
        let copy = try tables.dataServerCopy(id: id)
        let entries = try transaction.pending(for: id)
        guard copy != nil || !entries.isEmpty else {
            try tables.removeDataView(id: id)
            return
        }
        var fields = copy?.fields ?? [:]
        var deleted = copy?.deleted ?? false
        for entry in entries {
            switch entry.type {
            case .put:
                // A restore carries every field; a create too, over no copy (the fields start empty); an edit
                // the changed ones, over the fields so far (a create's still in flight included).
                fields = deleted ? entry.data : fields.merging(entry.data) { _, new in new }
                deleted = false
            case .delete:
                deleted = true
            }
        }
        let view = LocalDataRecord(kind: copy?.kind ?? kind, id: id, fields: fields, deleted: deleted,
                                   baseVersion: copy?.version ?? 0, pending: !entries.isEmpty)
        if try tables.dataView(id: id) != view { try tables.putDataView(view) }
    }

    /// The daemon applied `entry` at `version` and its answer carried no record (``storeApplied(_:version:seq:record:in:)``):
    /// the server copy becomes the held copy with the change on top (the pull brings the daemon's record itself),
    /// unless the copy held is newer.
    func storeReplayedData(_ entry: PendingMutation, version: Int64, seq: Int64, in transaction: any StoreTransaction) throws {
        let tables = try dataTables(transaction)
        let copy = try tables.dataServerCopy(id: entry.id)
        guard (copy?.version ?? 0) <= version else { return }
        var record = copy ?? DataRecord(kind: entry.kind, id: entry.id, fields: [:], version: version, seq: seq, deleted: false)
        switch entry.type {
        case .delete:
            record.deleted = true
        case .put:
            let complete = copy == nil || copy?.deleted == true
            record.fields = complete ? entry.data : record.fields.merging(entry.data) { _, new in new }
            record.deleted = false
        }
        record.version = version
        record.seq = max(seq, copy?.seq ?? 0)
        // Only a record that validates is kept (a partial edit of a copy never received waits for the pull).
        guard (try? LedgerDataValidator.validate(kind: record.kind, id: record.id, fields: record.fields)) != nil else { return }
        try tables.putDataServerCopy(record)
    }

    /// Whether the server's record shows the effect of `entry` (values compared exactly).
    static func holds(_ record: DataRecord, _ entry: PendingMutation) -> Bool {
        switch entry.type {
        case .delete: return record.deleted
        case .put:
            return !record.deleted && entry.data.allSatisfy { name, value in record.fields[name].map { $0.same(as: value) } ?? false }
        }
    }

    /// The daemon answered a change of a budget, rule or setting with a conflict: the entry leaves the queue with
    /// the later local changes of the record folded in (the newest intent), the server copy becomes the daemon's
    /// side, and the conflict is kept with both sides. `false` when there is nothing to settle: deleted on both
    /// sides, or the daemon's record already holds what this machine wants (its own earlier change, applied under
    /// an answer that was lost, or the same values set elsewhere).
    func keepDataConflict(_ entry: PendingMutation, theirs: DataRecord, in transaction: any StoreTransaction) throws -> Bool {
        let tables = try dataTables(transaction)
        try transaction.removePending(position: entry.position)
        if let copy = try tables.dataServerCopy(id: entry.id), copy.version > theirs.version {} else {
            try tables.putDataServerCopy(theirs)
        }
        let mine = try foldLater(into: entry, in: transaction)
        if (mine.type == .delete && theirs.deleted) || Self.holds(theirs, mine) {
            try tables.removeDataConflict(id: entry.id)
            return false
        }
        var conflict = DataConflict(id: entry.id, kind: entry.kind, mine: mine.type == .put ? mine.data : nil, theirs: theirs)
        if let earlier = try tables.dataConflict(id: entry.id), let earlierMine = earlier.mine, let newMine = conflict.mine {
            conflict.mine = earlierMine.merging(newMine) { _, new in new }
        }
        try tables.putDataConflict(conflict)
        return true
    }

    /// Stores a pulled budget, rule or setting as the server copy unless the held copy is newer; an open conflict's
    /// `theirs` follows it. `false` when it was no newer than the copy held (nothing to count as pulled).
    func applyPulled(_ record: DataRecord, in transaction: any StoreTransaction) throws -> Bool {
        guard let tables = transaction.dataTables else { return false }
        let copy = try tables.dataServerCopy(id: record.id)
        guard try storeServerRecord(record, over: copy, in: tables) else { return false }
        try refreshData(record.id, kind: record.kind, in: transaction)
        return copy.map { $0.version != record.version || $0.deleted != record.deleted } ?? true
    }

    /// Stores a budget's, rule's or setting's record as the daemon sent it — pulled, or carried by an `applied`
    /// answer — as the server copy, unless `copy`, the copy held, is newer; an open conflict's `theirs` follows it.
    /// The caller refreshes the local view.
    /// - Returns: whether it was stored.
    func storeServerRecord(_ record: DataRecord, over copy: DataRecord?, in tables: any DataKindTables) throws -> Bool {
        if let copy, copy.version > record.version, copy.seq >= record.seq { return false }
        try tables.putDataServerCopy(record)
        if var conflict = try tables.dataConflict(id: record.id) {
            conflict.theirs = record
            if conflict.mine == nil && record.deleted {
                try tables.removeDataConflict(id: record.id)
            } else {
                try tables.putDataConflict(conflict)
            }
        }
        return true
    }

    /// The budget, rule and setting tables of `transaction`.
    /// - Throws: ``LedgerDataCacheError/unsupportedStore(_:)`` for a store that keeps expenses only.
    func dataTables(_ transaction: any StoreTransaction) throws -> any DataKindTables {
        guard let tables = transaction.dataTables else { throw LedgerDataCacheError.unsupportedStore(store.location) }
        return tables
    }
}

extension LocalLedger {
    /// The kinds besides expenses this cache keeps: every one for the SQLite cache, none for the JSON cache.
    package var keptKinds: [RecordKind] { (try? LedgerDataCache(store: store)) == nil ? [] : RecordKind.additional }

    /// The kinds this cache has pulled from the start of the ledger's history (``StoreMetaKey/pulledKinds``).
    package func pulledKinds() throws -> Set<RecordKind> {
        Set((try store.metaValue(.pulledKinds) ?? "").split(separator: ",").compactMap { RecordKind(rawValue: String($0)) })
    }

    func setPulledKinds(_ kinds: Set<RecordKind>) throws {
        try store.setMetaValue(kinds.map(\.rawValue).sorted().joined(separator: ","), for: .pulledKinds)
    }

    /// Stores pulled budgets, rules and settings (``applyPulled(_:in:)``) in one transaction, the cursor untouched.
    /// - Returns: how many were newer than the copies held.
    package func apply(pulledData records: [DataRecord]) throws -> Int {
        guard !records.isEmpty else { return 0 }
        return try store.write { transaction in try records.count { try applyPulled($0, in: transaction) } }
    }

    /// After a heal pulled the daemon's whole history with `kinds` served: each budget, rule or setting of those
    /// kinds whose server copy is above the heal point and was not pulled is one the daemon lost. Its copy is
    /// dropped and what this cache shows of it (the lost copy with any queued changes on top) is queued again as
    /// one create, in place of those changes (an edit of a record the daemon does not have would be `not_found`);
    /// one shown deleted is forgotten. So nothing a person set is lost.
    /// - Returns: how many were queued again.
    package func healData(pulled: Set<UUID>, point: Int64, kinds: Set<RecordKind>) throws -> Int {
        try store.write { transaction in
            guard let tables = transaction.dataTables else { return 0 }
            var queued = 0
            for copy in try tables.dataServerCopies(seqAbove: point) where kinds.contains(copy.kind) && !pulled.contains(copy.id) {
                let view = try tables.dataView(id: copy.id)
                let entries = try transaction.pending(for: copy.id)
                // A change sent and not yet answered stays: its answer says what became of it.
                guard entries.allSatisfy({ $0.state == .unsent || $0.state == .rejected }) else { continue }
                try tables.removeDataServerCopy(id: copy.id)
                for entry in entries { try transaction.removePending(position: entry.position) }
                if let view, !view.deleted {
                    try stage(PendingMutation(type: .put, kind: view.kind, id: view.id, baseVersion: 0, data: view.fields), in: transaction)
                    queued += 1
                } else {
                    try refreshData(copy.id, kind: copy.kind, in: transaction)
                }
            }
            return queued
        }
    }

    /// The open conflicts of every kind.
    package func openConflictCount() throws -> Int {
        try store.conflicts().count + (dataCache?.conflictCount() ?? 0)
    }
}

extension LocalLedger {
    /// The daemon says this cache's token is a viewer's: every change waiting to be sent (queued before the cache
    /// knew its role, or under another token) is marked rejected `forbidden`, never numbered. It stays shown until
    /// it is discarded (`expense discard --rejected`) or a session's token may write again (``reopenRefused()``).
    func refuseUnsent(because tokenName: String?) throws {
        let token = tokenName.map { "the token \(DisplayText.quoted($0))" } ?? "this cache's token"
        let rejection = MutationRejection(reason: "forbidden", field: nil,
                                          message: "\(token) may only read this ledger; drop the change with `expense discard --rejected`")
        try store.write { transaction in
            try transaction.forEachPending { entry in
                guard entry.state == .unsent else { return true }
                var refused = entry
                refused.reject(rejection)
                try transaction.updatePending(refused)
                return true
            }
        }
    }

    /// The token may write: the changes ``refuseUnsent(because:)`` held back go out again.
    func reopenRefused() throws {
        guard try store.rejectedMutations().contains(where: { $0.rejection?.reason == "forbidden" }) else { return }
        try store.write { transaction in
            try transaction.forEachPending { entry in
                guard entry.state == .rejected, entry.rejection?.reason == "forbidden" else { return true }
                var again = entry
                again.reopen()
                try transaction.updatePending(again)
                return true
            }
        }
    }

    /// Refuses `expense` (replacing `old`, if it changes one) when its new payer or a member of its new split is not
    /// one of this cache's members or has left: the daemon's rule (``ExpenseCore/Member/refusal(of:replacing:member:)``),
    /// checked before anything is queued, so that an add, an edit, an import or an undo is refused here rather than
    /// rejected at the next sync. A cache that keeps no members (the JSON file) leaves it to the daemon.
    /// - Throws: ``ExpenseCore/ValidationError/invalidSplit(_:)`` with `unknown_member` or `member_left`.
    func checkMembers(of expense: Expense, replacing old: Expense?) throws {
        guard expense.paidBy != nil || expense.split != nil, let data = try? LedgerDataCache(store: store) else { return }
        let members = Dictionary(try data.records(.member).compactMap { try? LedgerDataValidator.member(id: $0.id, fields: $0.fields) }
            .map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        if let (error, _) = Member.refusal(of: expense, replacing: old, member: { members[$0] }) {
            throw ValidationError.invalidSplit(error)
        }
    }
}
