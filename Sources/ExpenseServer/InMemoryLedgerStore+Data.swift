import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// Budgets, rules and settings in memory (``LedgerDataStore``), in the state that ``transaction(_:)`` rolls back.
extension InMemoryLedgerStore {
    package func dataRecord(id: UUID) throws -> StoredDataRecord? { state.data[id] }

    package func writeData(_ record: StoredDataRecord, replacing old: StoredDataRecord?) throws {
        try checkNextSeq(record.seq)
        if let old { state.dataIdBySeq[old.seq] = nil }
        state.data[record.record.id] = record
        state.dataIdBySeq[record.seq] = record.record.id
        state.head = record.seq
    }

    package func dataChanges(since: Int64, limit: Int) throws -> [DataRecord] {
        state.dataIdBySeq.keys.filter { $0 > since }.sorted().prefix(limit).compactMap { seq in
            state.dataIdBySeq[seq].flatMap { state.data[$0]?.record }
        }
    }
}
