import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite

/// An open conflict on a budget, rule or setting (Protocol.md §10.2): what this machine sent and what the daemon
/// had, which the cache shows meanwhile.
package struct DataConflict: Hashable, Sendable {
    package var id: UUID
    package var kind: RecordKind
    /// The fields this machine sent (every field of a create; the changed ones of an edit); `nil`: a delete.
    package var mine: LedgerDataFields?
    /// The record as the daemon had it.
    package var theirs: DataRecord
}

/// How a budget, rule or setting conflict is settled (`expense resolve ID --mine | --theirs`).
package enum DataResolution: Sendable {
    /// This machine's change again, on top of the daemon's version (sent at the next sync).
    case mine
    /// The daemon's side, which the cache already shows: the conflict is dropped.
    case theirs
}

extension LedgerDataCache {
    /// Every open conflict on budgets, rules and settings, by id.
    package func conflictDetails() throws -> [DataConflict] {
        try connection.cached("SELECT id, kind, mine, theirs FROM data_conflict ORDER BY id").map([], Self.decodeConflict)
    }

    /// How many conflicts on budgets, rules and settings are open.
    package func conflictCount() throws -> Int {
        try connection.cached("SELECT count(*) FROM data_conflict").first { $0.int(0) } ?? 0
    }

    static func decodeConflict(_ row: SQLiteRow) throws -> DataConflict {
        guard let id = row.id(0), let kind = RecordKind(rawValue: row.text(1)),
              let json = try? JSONParser.parse(Array(row.text(3).utf8)), let theirs = try? DataRecord(json: json) else {
            throw LedgerDataCacheError.damaged("an unreadable conflict \(row.idDescription(0))")
        }
        return DataConflict(id: id, kind: kind, mine: row.isNull(2) ? nil : try Self.fields(row.text(2)), theirs: theirs)
    }
}

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
