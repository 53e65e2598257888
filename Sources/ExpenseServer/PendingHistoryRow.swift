import ExpenseCore
import ExpenseProtocol
import Foundation

/// A history row as a store's group commit writes it (Protocol.md §5.8): an entry with its `changes` as the
/// column holds them (``HistoryEntry/changesJSON``), for a creation the bytes written ahead on the loop thread
/// (``PreparedCreation``; the PostgreSQL store's: the SQLite store's records imply their creations). Both SQL
/// stores keep a transaction's rows so and write them before COMMIT.
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

    /// The row of `record`'s creation (just written), its changes as written ahead.
    init(creationOf record: StoredRecord, changesJSON: ArraySlice<UInt8>, clientId: UUID, author: HistoryAuthor) {
        self.init(seq: record.seq, id: record.expense.id, previous: 0, version: record.version, action: .create,
                  changes: changesJSON, who: author.who, clientId: clientId, time: author.time, kind: .expense)
    }

    init(seq: Int64, id: UUID, previous: Int64, version: Int64, action: HistoryEntry.Action, changes: ArraySlice<UInt8>,
         who: String?, clientId: UUID, time: Int64, kind: RecordKind) {
        (self.seq, self.id, self.previous, self.version, self.action) = (seq, id, previous, version, action)
        (self.changes, self.who, self.clientId, self.time, self.kind) = (changes, who, clientId, time, kind)
    }
}
