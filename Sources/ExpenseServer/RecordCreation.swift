import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// The creation of an expense as its `records` rows keep it in both SQL stores (SQLite's migration 14,
/// ``SQLiteLedgerStore/creationColumnsMigration``; PostgreSQL's migration 10): the create entry of its history
/// (Protocol.md §5.8) without a `history` row of its own.
struct RecordCreation: Hashable {
    /// The creation's seq; in the SQLite store 0 in the record's first version, whose own seq it is.
    var seq: Int64
    var who: String?
    var clientId: UUID
    var time: Int64

    /// The columns, in order, after ``RecordColumns/list`` in the statements that read or write them.
    static let columns = ["created_seq", "created_by", "created_client", "created_time"]
    static let list = columns.joined(separator: ", ")

    /// This creation as a later version of the record carries it: with its seq, `rowSeq` when it is the row's own.
    func carried(from rowSeq: Int64) -> RecordCreation {
        var creation = self
        if creation.seq == 0 { creation.seq = rowSeq }
        return creation
    }

    init(seq: Int64, who: String?, clientId: UUID, time: Int64) {
        (self.seq, self.who, self.clientId, self.time) = (seq, who, clientId, time)
    }

    /// The create entry of the expense whose current (or tombstone) version is `record` and whose creation this
    /// is (its seq resolved): the first version's values are the current ones with the `from` of each change in
    /// `later` (every change after the creation, newest first) applied in turn; a change names every group it
    /// changed with its value before (``HistoryEntry/changes(from:to:)``), so the values are exact.
    func entry(of record: StoredRecord, later: [HistoryEntry]) -> HistoryEntry {
        let groups = ExpenseField.conflictGroups
        var values = groups.map { ExpenseFields.historyValue(of: $0, in: record.expense) }
        for entry in later {
            for change in entry.changes {
                if let from = change.from, let index = HistoryEntry.fieldNames.firstIndex(of: change.field) { values[index] = from }
            }
        }
        let changes = zip(groups, values).compactMap { group, value in
            ExpenseFields.isEmptyOptional(group, value: value)
                ? nil : HistoryEntry.Change(field: group.conflictGroupName, from: nil, to: value)
        }
        return HistoryEntry(seq: seq, id: record.expense.id, version: 1, action: .create, changes: changes,
                            who: who, clientId: clientId, time: time)
    }
}
