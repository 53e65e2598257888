import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// A budget, recurring rule or setting as a store keeps it: the wire ``DataRecord`` plus, per conflict field
/// (``LedgerDataValidator/conflictField(_:)``: `amount` and `currency` are one, `money`), the version at which
/// it last changed.
package struct StoredDataRecord: Hashable, Sendable {
    package var record: DataRecord
    package var fieldVersions: [String: Int64]

    package init(record: DataRecord, fieldVersions: [String: Int64]) {
        self.record = record
        self.fieldVersions = fieldVersions
    }

    package var version: Int64 { record.version }
    package var seq: Int64 { record.seq }
    package var deleted: Bool { record.deleted }

    /// The version at which `field` last changed (1 when it never did since the creation).
    package func version(of field: String) -> Int64 { fieldVersions[LedgerDataValidator.conflictField(field)] ?? 1 }
}

/// What a store holds besides expenses (Protocol.md §10): budgets, recurring rules and settings, in the same
/// `seq` sequence as expenses (so one cursor covers both) but apart from them, so that nothing of them reaches
/// an expense's totals, aggregates or a protocol-1 pull.
///
/// - Important: Same rules as ``LedgerStore``: writes only inside its `transaction`, a write takes `head + 1`
///   and advances the head, and a failed transaction leaves nothing of them.
package protocol LedgerDataStore: AnyObject {
    /// The record with this id, tombstones included.
    func dataRecord(id: UUID) throws -> StoredDataRecord?
    /// Stores `record` (new, or replacing `old`, the value previously read for the same id). `record.seq` must be
    /// `head + 1`.
    func writeData(_ record: StoredDataRecord, replacing old: StoredDataRecord?) throws
    /// Up to `limit` records with `seq` > `since`, in `seq` order.
    func dataChanges(since: Int64, limit: Int) throws -> [DataRecord]
}
