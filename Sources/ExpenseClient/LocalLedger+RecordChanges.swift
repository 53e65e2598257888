import ExpenseCore
import ExpenseProtocol
import Foundation

/// One change of a budget, rule, rate, recurring rule, transfer or setting, for ``LocalLedger/change(_:journal:)``.
package enum RecordChange: Hashable, Sendable {
    /// Sets the record `id` of the kind to the fields.
    case put(RecordKind, id: UUID, fields: LedgerDataFields)
    /// Deletes the record `id`.
    case delete(id: UUID)
}

/// Why `expense undo` refused to revert a command on records.
package enum RecordUndoError: Error, Hashable, Sendable {
    /// The record is no longer as the reverted command left it: it changed since, on this machine or another
    /// (and that change was pulled). Reverting would silently drop that change, so nothing is done.
    case changedSince(kind: RecordKind, id: UUID)

    /// The stable code the CLI shows.
    package var code: String { "changed_since" }

    package var message: String {
        switch self {
        case .changedSince(let kind, let id):
            "\(kind.rawValue) \(UUIDText.lowercased(id).prefix(8)) changed since; nothing was undone "
                + "(`expense log` shows who changed it; set it by hand)"
        }
    }
}

/// Budgets, rules, rates, recurring rules, transfers and settings changed as one command of this machine, and
/// such a command reverted (`expense undo`).
extension LocalLedger {
    /// Applies `changes` in order, in one transaction: each put validated, closing an open conflict of its record
    /// (this machine's answer, "mine") and queued as the fields that changed; each delete of a live record queued.
    /// With `journal`, the changes are journaled as one command of that name (`rule move`), so that `expense undo
    /// --last` reverts all of them together.
    /// - Returns: each record that changed, as it was and is (empty: nothing changed).
    /// - Throws: ``ReadOnlyLedgerError`` on a viewer's cache, ``LedgerDataError``,
    ///   ``LedgerDataCacheError/unsupportedStore(_:)`` for the JSON cache, ``StoreError``.
    @discardableResult
    package func change(_ changes: [RecordChange], journal: String?) throws -> [JournalEntry.RecordStep] {
        try ensureWritable()
        let validated = try changes.map(Self.validated)
        return try store.write { transaction in
            var steps: [JournalEntry.RecordStep] = []
            for change in validated {
                if let step = try apply(change, in: transaction) { steps.append(step) }
            }
            if let journal, let first = steps.first {
                try appendJournal(JournalEntry(command: journal, id: first.id, subject: .records(steps), time: Self.now), in: transaction)
            }
            return steps
        }
    }

    /// Reverts `steps` (a journaled command's, or a change the daemon's history describes), last first, in one
    /// transaction: each record must still be as its step left it, else nothing is done. The revert is queued as
    /// ordinary local changes (the daemon checks them against whatever it applied since, Protocol.md §7.4) and
    /// journaled as an `undo`; journal entry `journalIndex`, when given, is marked undone.
    /// - Returns: the steps taken.
    /// - Throws: ``RecordUndoError/changedSince(kind:id:)``, ``ReadOnlyLedgerError``, ``LedgerDataError`` (a
    ///   value that no longer validates), ``StoreError``.
    @discardableResult
    package func revert(_ steps: [JournalEntry.RecordStep], undoing journalIndex: Int? = nil) throws -> [JournalEntry.RecordStep] {
        try ensureWritable()
        return try store.write { transaction in
            let tables = try dataTables(transaction)
            var taken: [JournalEntry.RecordStep] = []
            for step in steps.reversed() {
                let view = try tables.dataView(id: step.id)
                guard step.left(view.flatMap { $0.deleted ? nil : $0.fields }) else {
                    throw RecordUndoError.changedSince(kind: step.kind, id: step.id)
                }
                let change = step.before.map { RecordChange.put(step.kind, id: step.id, fields: $0) } ?? .delete(id: step.id)
                if let done = try apply(Self.validated(change), in: transaction) { taken.append(done) }
            }
            var entries = JournalEntry.decode(try transaction.metaValue(.undoJournal))
            if let journalIndex, entries.indices.contains(journalIndex) {
                entries[journalIndex].undone = true
                try transaction.setMetaValue(JournalEntry.encode(entries), for: .undoJournal)
            }
            if let first = taken.first {
                try appendJournal(JournalEntry(command: "undo", id: first.id, subject: .records(taken), time: Self.now), in: transaction)
            }
            return taken
        }
    }

    /// The step that reverts `entry`, the daemon's latest change of a budget, rule or other record (from its
    /// history), read off the server copy this cache holds: a create or a restore is reverted by a delete, a
    /// delete by the tombstone's last fields, an edit by each changed field's value before it. `nil` when the
    /// copy held is not of `entry`'s version (the cache has not pulled it yet).
    /// - Throws: ``StoreError``.
    package func step(reverting entry: HistoryEntry) throws -> JournalEntry.RecordStep? {
        guard let copy = try store.write({ transaction in try dataTables(transaction).dataServerCopy(id: entry.id) }),
              copy.version == entry.version else { return nil }
        var before: LedgerDataFields?
        switch entry.action {
        case .create, .restore: before = nil
        case .delete: before = copy.fields
        case .edit:
            var fields = copy.fields
            for change in entry.changes {
                if case .data(let value)? = change.from { fields[change.field] = value }
            }
            before = fields
        }
        return JournalEntry.RecordStep(kind: copy.kind, id: copy.id, before: before, after: copy.deleted ? nil : copy.fields)
    }

    private static func validated(_ change: RecordChange) throws -> RecordChange {
        guard case .put(let kind, let id, let fields) = change else { return change }
        return .put(kind, id: id, fields: try LedgerDataValidator.validate(kind: kind, id: id, fields: fields))
    }

    /// Queues one validated change; `nil` when it changed nothing.
    private func apply(_ change: RecordChange, in transaction: any StoreTransaction) throws -> JournalEntry.RecordStep? {
        let tables = try dataTables(transaction)
        switch change {
        case .put(let kind, let id, let fields):
            let before = try tables.dataView(id: id).flatMap { $0.deleted ? nil : $0.fields }
            try tables.removeDataConflict(id: id)
            try stageData(kind, id: id, fields: fields, in: transaction)
            let after = try tables.dataView(id: id).flatMap { $0.deleted ? nil : $0.fields }
            let step = JournalEntry.RecordStep(kind: kind, id: id, before: before, after: after)
            return step.reversed.left(after) ? nil : step
        case .delete(let id):
            guard let view = try tables.dataView(id: id), !view.deleted else { return nil }
            try stage(PendingMutation(type: .delete, kind: view.kind, id: id, baseVersion: 0), in: transaction)
            return JournalEntry.RecordStep(kind: view.kind, id: id, before: view.fields, after: nil)
        }
    }
}
