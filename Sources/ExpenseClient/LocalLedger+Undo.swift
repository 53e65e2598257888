import ExpenseCore
import ExpenseProtocol
import Foundation

/// What reverting one change takes: an ordinary local change, queued with the version the reverted change
/// produced as its base, so that the daemon's conflict check (Protocol.md §7.4) compares it with whatever was
/// built on that change since: a later change of the same fields makes the undo a conflict, shown, never a
/// silent overwrite; changes of other fields merge.
package struct UndoPlan: Hashable, Sendable {
    package var id: UUID
    package var type: MutationType
    /// For a put: the fields to set (every field for a restore).
    package var fields: ExpenseDraft
    /// The version the reverted change produced.
    package var baseVersion: Int64
    /// What is reverted, for people: `create`, `edit`, `delete`, `restore`.
    package var reverts: String

    package init(id: UUID, type: MutationType, fields: ExpenseDraft, baseVersion: Int64, reverts: String) {
        self.id = id
        self.type = type
        self.fields = fields
        self.baseVersion = baseVersion
        self.reverts = reverts
    }

    /// The inverse of a daemon history entry: a create or a restore becomes a delete, a delete a restore (with
    /// `tombstone`'s fields: a tombstone keeps its last values), an edit the edit back to the `from` values.
    /// `nil` when a delete is to be undone and no tombstone is known.
    package init?(reverting entry: HistoryEntry, tombstone: Expense?) {
        switch entry.action {
        case .create, .restore:
            self.init(id: entry.id, type: .delete, fields: ExpenseDraft(), baseVersion: entry.version, reverts: entry.action.rawValue)
        case .delete:
            guard var full = tombstone?.draft else { return nil }
            full.id = nil
            self.init(id: entry.id, type: .put, fields: full, baseVersion: entry.version, reverts: "delete")
        case .edit:
            var fields = ExpenseDraft()
            for change in entry.changes {
                if let from = change.from { _ = ExpenseFields.set(historyValue: from, named: change.field, in: &fields) }
            }
            self.init(id: entry.id, type: .put, fields: fields, baseVersion: entry.version, reverts: "edit")
        }
    }

    /// The inverse of a local expense command from the journal (`baseVersion` is filled in by the caller); `nil`
    /// for a command on other records (``LocalLedger/revert(_:undoing:)`` reverts those).
    package init?(reverting entry: JournalEntry, baseVersion: Int64) {
        guard case .expense(let before, let after) = entry.subject else { return nil }
        self.init(reverting: entry.id, before: before, after: after, baseVersion: baseVersion)
    }

    /// The inverse of a local expense command from the journal: the expense `id` went from `before` (`nil`: it
    /// was added) to `after` (`baseVersion` is filled in by the caller).
    package init(reverting id: UUID, before: JournalEntry.State?, after: JournalEntry.State, baseVersion: Int64) {
        var full = before?.expense.draft ?? ExpenseDraft()
        full.id = nil
        guard let before else {
            self.init(id: id, type: .delete, fields: ExpenseDraft(), baseVersion: baseVersion, reverts: "create")
            return
        }
        switch (before.deleted, after.deleted) {
        case (false, true):
            self.init(id: id, type: .put, fields: full, baseVersion: baseVersion, reverts: "delete")
        case (true, _):
            self.init(id: id, type: .delete, fields: ExpenseDraft(), baseVersion: baseVersion, reverts: "restore")
        case (false, false):
            self.init(id: id, type: .put, fields: LocalLedger.difference(from: after.expense, to: before.expense),
                      baseVersion: baseVersion, reverts: "edit")
        }
    }
}

extension LocalLedger {
    /// Whether `id` has local changes the daemon has not answered for.
    package func hasPending(_ id: UUID) throws -> Bool {
        try store.write { transaction in try !transaction.pending(for: id).isEmpty }
    }

    /// The server copy this cache holds of `id` (a tombstone included), or `nil`.
    package func serverCopy(_ id: UUID) throws -> Record? {
        try store.write { transaction in try transaction.serverCopy(id: id) }
    }

    /// The local state of `id`, deleted ones included.
    package func localRecord(_ id: UUID) throws -> LocalRecord? { try store.record(id: id) }

    /// Queues `plan` as a local change and journals it as an `undo`. With a local change of the expense still
    /// waiting, the undo folds into it (later fields win, Protocol.md §7.4 client rules); otherwise it is queued
    /// based on `plan.baseVersion`. When `journalIndex` is given, that journal entry is marked undone.
    /// - Throws: ``ExpenseCore/ValidationError`` when the reverted values no longer validate.
    package func apply(_ plan: UndoPlan, undoing journalIndex: Int? = nil) throws {
        try ensureWritable()
        if plan.type == .put, plan.reverts == "delete" {
            var complete = plan.fields
            complete.id = .value(plan.id)
            _ = try ExpenseValidator.validate(complete)
        }
        try store.write { transaction in
            let before = try transaction.record(id: plan.id)
            try queueUndo(PendingMutation(type: plan.type, id: plan.id, baseVersion: plan.baseVersion, fields: plan.fields),
                          in: transaction)
            // The reverted payer and split must still name members who have not left (the daemon's rule).
            if let after = try transaction.record(id: plan.id), !after.deleted {
                try checkMembers(of: after.expense, replacing: before.flatMap { $0.deleted ? nil : $0.expense })
            }
            var entries = JournalEntry.decode(try transaction.metaValue(.undoJournal))
            if let journalIndex, entries.indices.contains(journalIndex) {
                entries[journalIndex].undone = true
                try transaction.setMetaValue(JournalEntry.encode(entries), for: .undoJournal)
            }
            if let after = try transaction.record(id: plan.id) {
                try appendJournal(JournalEntry(command: "undo", id: plan.id, before: before.map(Self.state),
                                               after: Self.state(after), time: Self.now), in: transaction)
            }
        }
    }

    /// Queues the reverting `change`: folded into a local change of the expense still waiting (later fields win,
    /// a delete of a creation never sent removes both), else queued on its own based on `change.baseVersion`.
    func queueUndo(_ change: PendingMutation, in transaction: any StoreTransaction) throws {
        if try transaction.pending(for: change.id).isEmpty, try transaction.serverCopy(id: change.id) != nil {
            try transaction.appendPending(change)
            try refresh(change.id, kind: .expense, in: transaction)
        } else {
            try stage(change, in: transaction)
        }
    }
}
