import ExpenseCore
import ExpenseProtocol
import Foundation

/// The tables of the kinds besides expenses (budgets, recurring rules, settings; Protocol.md §10), inside a
/// ``StoreTransaction``: each record's local view, the server's copy and an open conflict, as expenses have.
/// Their queue entries are the expense queue's (``PendingMutation/kind``). Only the SQLite cache keeps them.
package protocol DataKindTables: AnyObject {
    /// The local view of `id` (tombstones included).
    func dataView(id: UUID) throws -> LocalDataRecord?
    /// Writes the local view of a record.
    func putDataView(_ record: LocalDataRecord) throws
    /// Removes the local view of `id` (a create the daemon never received, deleted before it was sent).
    func removeDataView(id: UUID) throws
    /// The server's last-seen copy of `id`.
    func dataServerCopy(id: UUID) throws -> DataRecord?
    func putDataServerCopy(_ record: DataRecord) throws
    /// Every server copy with `seq` above `seq` (the records a replaced daemon history may have lost; a heal).
    func dataServerCopies(seqAbove seq: Int64) throws -> [DataRecord]
    func removeDataServerCopy(id: UUID) throws
    func dataConflict(id: UUID) throws -> DataConflict?
    func putDataConflict(_ conflict: DataConflict) throws
    func removeDataConflict(id: UUID) throws
}

extension StoreTransaction {
    /// The kind of the record `id` when it is not an expense: from its queue entries, else its view or server copy.
    func dataKind(of id: UUID, entries: [PendingMutation]? = nil) throws -> RecordKind? {
        if let kind = try (entries ?? pending(for: id)).first?.kind { return kind == .expense ? nil : kind }
        guard let tables = dataTables else { return nil }
        return try tables.dataView(id: id)?.kind ?? tables.dataServerCopy(id: id)?.kind
    }
}
