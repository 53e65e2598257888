import ExpenseCore
import ExpenseProtocol
import Foundation

/// How a person settles a conflict.
package enum Resolution: Hashable, Sendable {
    /// Keep the local change: submit it again against the server's current version (for edit versus delete a
    /// `put` at the tombstone's version with every field, which restores the expense).
    case mine
    /// Drop the local change and take the server's record.
    case theirs
    /// Start from the server's record and set these fields.
    case edit(ExpenseDraft)
}

extension LocalLedger {
    /// The open conflict of the expense whose id starts with `prefix` (at least ``minimumPrefixLength`` characters).
    /// - Throws: ``ExpenseCore/ValidationError/invalidId(_:)`` when no id can start so (`zzzz`),
    ///   ``StoreError/idPrefixTooShort(_:)``, ``StoreError/noConflict(_:)``, ``StoreError/ambiguousId(_:matches:)``.
    package func conflict(_ prefix: String) throws -> Conflict {
        guard UUIDText.isPossiblePrefix(prefix) else { throw ValidationError.invalidId(prefix) }
        let wanted = prefix.lowercased()
        guard wanted.count >= Self.minimumPrefixLength else { throw StoreError.idPrefixTooShort(prefix) }
        let found = try store.conflicts().filter { UUIDText.lowercased($0.id).hasPrefix(wanted) }
        switch found.count {
        case 0: throw StoreError.noConflict(prefix)
        case 1: return found[0]
        default: throw StoreError.ambiguousId(prefix, matches: found.map { String(UUIDText.lowercased($0.id).prefix(8)) })
        }
    }

    /// Settles `conflict`: queues what the resolution needs (sent by the next sync) and closes the conflict.
    /// - Throws: ``ExpenseCore/ValidationError`` for `--edit` fields, ``StoreError``.
    package func resolve(_ conflict: Conflict, _ resolution: Resolution) throws {
        if case .theirs = resolution {} else { try ensureWritable() }  // taking theirs queues nothing
        try store.write { transaction in
            let theirs = try transaction.serverCopy(id: conflict.id) ?? conflict.theirs
            var change: PendingMutation?
            switch resolution {
            case .theirs:
                change = nil
            case .mine where conflict.mine == .delete:
                change = theirs.deleted ? nil : PendingMutation(type: .delete, id: conflict.id, baseVersion: theirs.version)
            case .mine:
                change = try restoringPut(theirs, fields: conflict.mineFields)
            case .edit(var fields):
                fields.id = nil
                change = try restoringPut(theirs, fields: fields)
            }
            try transaction.removeConflict(id: conflict.id)
            if let change {
                // Based on the server's current version, whatever the queue held for this expense before.
                for entry in try transaction.pending(for: conflict.id) where entry.state == .unsent || entry.state == .rejected {
                    try transaction.removePending(position: entry.position)
                }
                try transaction.appendPending(change)
            }
            try refresh(conflict.id, kind: .expense, in: transaction)
        }
    }

    /// A `put` of `fields` on top of `theirs` at its version: only the changed fields on a live record, every
    /// field on a tombstone (a restore must send them all).
    private func restoringPut(_ theirs: Record, fields: ExpenseDraft) throws -> PendingMutation {
        let merged = try ExpenseValidator.validate(theirs.expense.draft.merging(fields))
        var sent = theirs.deleted ? merged.draft : Self.difference(from: theirs.expense, to: merged)
        sent.id = nil
        if !theirs.deleted, sent == ExpenseDraft() {
            // Mine already equals theirs: the resolution is still sent, as a put at theirs' version carrying one
            // field, the note unchanged (a no-op on the daemon).
            sent = ExpenseDraft(note: merged.note)
        }
        return PendingMutation(type: .put, id: theirs.expense.id, baseVersion: theirs.version, fields: sent)
    }
}
