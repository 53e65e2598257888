import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// A history row as a store's group commit writes it (Protocol.md §5.8): an entry with its `changes` as the
/// column holds them (``HistoryEntry/changesJSON``). Both SQL stores keep a transaction's rows so and write them
/// before COMMIT; an expense's creation is no row (its record's row implies it, ``RecordCreation``).
struct PendingHistoryRow {
    var seq: Int64
    var id: UUID
    /// The seq of the version this change replaced (0: none); the SQLite store keeps it, PostgreSQL's does not.
    var previous: Int64
    var version: Int64
    var action: HistoryEntry.Action
    var changes: ArraySlice<UInt8>
    var who: String?
    var clientId: UUID
    var time: Int64
    var kind: RecordKind

    /// The row of `entry`, linked to `previous`.
    init(_ entry: HistoryEntry, previous: Int64) {
        self.init(seq: entry.seq, id: entry.id, previous: previous, version: entry.version, action: entry.action,
                  changes: entry.changesJSON[...], who: entry.who, clientId: entry.clientId, time: entry.time,
                  kind: entry.kind)
    }

    init(seq: Int64, id: UUID, previous: Int64, version: Int64, action: HistoryEntry.Action, changes: ArraySlice<UInt8>,
         who: String?, clientId: UUID, time: Int64, kind: RecordKind) {
        (self.seq, self.id, self.previous, self.version, self.action) = (seq, id, previous, version, action)
        (self.changes, self.who, self.clientId, self.time, self.kind) = (changes, who, clientId, time, kind)
    }
}
