import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// What a store keeps of each applied change (Protocol.md §5.8) and how it forgets old ones (compaction).
///
/// - Important: ``appendHistory(_:)`` is called inside the same ``LedgerStore/transaction(_:)`` as the
///   ``LedgerStore/write(_:replacing:)`` it describes, so a change and its history entry are durable together
///   or not at all.
package protocol LedgerHistoryStore: AnyObject {
    /// Appends the entry of the change just written (its `seq` is the record's new seq).
    func appendHistory(_ entry: HistoryEntry) throws
    /// ``appendHistory(_:)`` of the creation of `record` (just written, a prepared create). The default makes the
    /// entry as ``HistoryEntry/init(from:to:clientId:author:)-(StoredRecord?,_,_,_)`` does; both SQL stores'
    /// records imply their creations instead (``RecordCreation``).
    func appendCreation(of record: StoredRecord, clientId: UUID, author: HistoryAuthor) throws
    /// Up to `limit` entries matching `request` (its `limit` is ignored), in `seq` order.
    func history(_ request: HistoryRequest, limit: Int) throws -> [HistoryEntry]
    /// The purge horizon: history entries at or below it may have been removed and tombstones at or below it are
    /// purged (no longer pulled from 0, kept so that a later change of the id meets the deletion and a pull from
    /// an older cursor still carries it). Read from storage each time, so a compaction made by another process
    /// (`expensed compact` beside a serving daemon) counts at once.
    func purgeHorizon() throws -> Int64
    /// Purges the tombstones and removes the history entries of changes older than `cutoff` (daemon time,
    /// seconds since 1970), raising the purge horizon first.
    func compact(before cutoff: Int64) throws -> CompactionReport
}

extension LedgerHistoryStore {
    package func appendCreation(of record: StoredRecord, clientId: UUID, author: HistoryAuthor) throws {
        try appendHistory(HistoryEntry(from: nil, to: record, clientId: clientId, author: author))
    }
}

/// What a compaction did.
package struct CompactionReport: Hashable, Sendable {
    /// The purge horizon now.
    package var horizon: Int64
    /// Tombstones purged by this compaction (no longer pulled; their ids and deletions kept).
    package var tombstones: Int
    /// History entries removed.
    package var entries: Int

    package init(horizon: Int64, tombstones: Int, entries: Int) {
        self.horizon = horizon
        self.tombstones = tombstones
        self.entries = entries
    }
}

/// Who made the changes of one push, and when: what each of its history entries records.
package struct HistoryAuthor: Hashable, Sendable {
    /// The session's name for its client: today the `hello`'s `clientName`. This is the one place a token's
    /// name takes over once tokens have names (the session passes it here instead).
    package var who: String?
    /// The daemon's clock, seconds since 1970-01-01T00:00:00Z.
    package var time: Int64

    package init(who: String?, time: Int64) {
        self.who = who
        self.time = time
    }

    /// The daemon's clock now, in whole seconds.
    package static func now() -> Int64 { Int64(Date().timeIntervalSince1970.rounded(.down)) }  // not money: seconds
}

extension HistoryEntry {
    /// The action of a change from a record that was live or deleted (`nil`: absent) to one that is `deleted`.
    static func action(from oldDeleted: Bool?, toDeleted deleted: Bool) -> Action {
        guard let oldDeleted else { return .create }
        return deleted ? .delete : oldDeleted ? .restore : .edit
    }

    /// The entry for the change from `old` (nil: a create) to `new`, both as the store holds them.
    package init(from old: StoredRecord?, to new: StoredRecord, clientId: UUID, author: HistoryAuthor) {
        let action = Self.action(from: old?.deleted, toDeleted: new.deleted)
        let changes = action == .delete ? [] : Self.changes(from: old?.expense, to: new.expense)
        self.init(seq: new.seq, id: new.expense.id, version: new.version, action: action, changes: changes,
                  who: author.who, clientId: clientId, time: author.time)
    }

    /// The entry of a budget, rule or setting changing from `old` (nil: a create) to `new`: the same actions, its
    /// own fields (``HistoryEntry/changes(from:to:)-(LedgerDataFields?,_)``), and its `kind`.
    package init(from old: StoredDataRecord?, to new: StoredDataRecord, clientId: UUID, author: HistoryAuthor) {
        let action = Self.action(from: old?.deleted, toDeleted: new.deleted)
        let changes = action == .delete ? [] : Self.changes(from: old?.record.fields, to: new.record.fields)
        self.init(seq: new.seq, id: new.record.id, version: new.version, action: action, changes: changes,
                  who: author.who, clientId: clientId, time: author.time)
        kind = new.record.kind
    }
}
