import ExpenseCore
import ExpenseProtocol
import Foundation

/// What `expense undo --last` did to an import: how many of its rows it deleted, and how many were already gone.
package struct ImportUndoOutcome: Hashable, Sendable {
    package var deleted: Int
    package var alreadyGone: Int

    package init(deleted: Int, alreadyGone: Int) {
        self.deleted = deleted
        self.alreadyGone = alreadyGone
    }
}

extension LocalLedger {
    /// Undoes the import that journal entry `index` records, in one transaction: every row it created that is
    /// still live is deleted as an ordinary local change. A row whose creation was never sent simply goes (with
    /// its queued creation); a synced one gets a delete based on version 1, the version its creation made, so
    /// that a row someone changed since is a conflict when the delete syncs (Protocol.md §7.4), never a silent
    /// loss of their change. The entry is marked undone and its ids are dropped (an undone import is not redone).
    /// - Returns: `nil` (and nothing changed) when the entry is not an import whose ids are still kept (a later
    ///   import replaced them).
    /// - Throws: ``StoreError``.
    package func undoImport(at index: Int) throws -> ImportUndoOutcome? {
        try ensureWritable()
        return try store.write { transaction in
            var entries = JournalEntry.decode(try transaction.metaValue(.undoJournal))
            guard entries.indices.contains(index), let imported = ImportJournal(try transaction.metaValue(.lastImport)),
                  imported.belongs(to: entries[index]) else { return nil }
            var outcome = ImportUndoOutcome(deleted: 0, alreadyGone: 0)
            for id in imported.ids {
                guard let record = try transaction.record(id: id), !record.deleted else {
                    outcome.alreadyGone += 1
                    continue
                }
                try queueUndo(PendingMutation(type: .delete, id: id, baseVersion: 1, fields: ExpenseDraft()), in: transaction)
                outcome.deleted += 1
            }
            entries[index].undone = true
            try transaction.setMetaValue(JournalEntry.encode(entries), for: .undoJournal)
            try transaction.setMetaValue(nil, for: .lastImport)
            return outcome
        }
    }
}
