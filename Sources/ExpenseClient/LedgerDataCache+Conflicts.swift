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
