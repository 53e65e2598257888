import ExpenseCore
import ExpenseProtocol
import Foundation

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
        try connection.cached("SELECT id, kind, mine, theirs FROM data_conflict ORDER BY id").map([]) { row in
            guard let id = row.id(0), let kind = RecordKind(rawValue: row.text(1)),
                  let json = try? JSONParser.parse(Array(row.text(3).utf8)), let theirs = try? DataRecord(json: json) else {
                throw LedgerDataCacheError.damaged("an unreadable conflict \(row.idDescription(0))")
            }
            return DataConflict(id: id, kind: kind, mine: row.isNull(2) ? nil : try Self.fields(row.text(2)), theirs: theirs)
        }
    }

    /// Settles the conflict on `conflict.id`: `mine` sets the record again to the daemon's fields with this
    /// machine's on top (or deletes it, when this machine's change was a delete), queued for the next sync, and
    /// drops the conflict; `theirs` drops the conflict and keeps the daemon's side shown.
    /// - Important: two transactions (``put(_:id:fields:)`` has its own), the change first: interrupted between
    ///   them, the conflict stays open over a queued change, and resolving it again queues nothing new.
    package func resolve(_ conflict: DataConflict, _ resolution: DataResolution) throws {
        if resolution == .mine {
            if let mine = conflict.mine {
                let base = conflict.theirs.deleted ? [:] : conflict.theirs.fields
                try put(conflict.kind, id: conflict.id, fields: base.merging(mine) { _, new in new })
            } else {
                _ = try delete(id: conflict.id)
            }
        }
        try removeConflict(id: conflict.id)
    }
}
