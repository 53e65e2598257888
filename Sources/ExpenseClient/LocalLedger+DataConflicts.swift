import ExpenseCore
import ExpenseProtocol
import Foundation

/// Settling a conflict on a budget, rule or setting (`expense resolve ID --mine | --theirs`).
extension LocalLedger {
    /// Settles the conflict on `conflict.id`: `mine` sets the record again to the daemon's fields with this
    /// machine's on top (or deletes it, when this machine's change was a delete), queued for the next sync, and
    /// drops the conflict; `theirs` drops the conflict and keeps the daemon's side shown. One transaction.
    ///
    /// A record the daemon has removed is restored by `mine`: with this machine's fields alone when they are a whole
    /// record (a create or a restore), else with its last fields, which the daemon's tombstone keeps, and this
    /// machine's changes on top (an edit carries the changed fields only, which alone are no record).
    /// - Throws: ``ReadOnlyLedgerError`` on a viewer's cache, ``LedgerDataError``, ``StoreError``.
    package func resolve(_ conflict: DataConflict, _ resolution: DataResolution) throws {
        try ensureWritable()
        let fields: LedgerDataFields? = switch resolution {
        case .theirs: nil
        case .mine: conflict.mine.map { mine in
            if conflict.theirs.deleted, (try? LedgerDataValidator.validate(kind: conflict.kind, id: conflict.id, fields: mine)) != nil {
                return mine
            }
            return conflict.theirs.fields.merging(mine) { _, new in new }
        }
        }
        let validated = try fields.map { try LedgerDataValidator.validate(kind: conflict.kind, id: conflict.id, fields: $0) }
        try store.write { transaction in
            let tables = try dataTables(transaction)
            try tables.removeDataConflict(id: conflict.id)
            guard resolution == .mine else { return }
            if let validated {
                try stageData(conflict.kind, id: conflict.id, fields: validated, in: transaction)
            } else if let view = try tables.dataView(id: conflict.id), !view.deleted {
                try stage(PendingMutation(type: .delete, kind: conflict.kind, id: conflict.id, baseVersion: 0), in: transaction)
            }
        }
    }
}
