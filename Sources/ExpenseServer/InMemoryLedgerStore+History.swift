import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// The history and compaction of the in-memory store: the reference ``SQLiteLedgerStore+History`` is checked
/// against (StoreContractTests). Part of ``InMemoryLedgerStore/State``, so a failed transaction drops it too.
extension InMemoryLedgerStore {
    package func appendHistory(_ entry: HistoryEntry) throws {
        state.history.append(entry)
    }

    package func history(_ request: HistoryRequest, limit: Int) throws -> [HistoryEntry] {
        Array(state.history.lazy.filter { entry in
            entry.seq > request.since && entry.time >= (request.sinceTime ?? 0) && (request.id.map { $0 == entry.id } ?? true)
                && request.wants(entry.kind)
        }.prefix(limit))
    }

    package func purgeHorizon() throws -> Int64 { state.horizon }

    package func compact(before cutoff: Int64) throws -> CompactionReport {
        let firstYoung = state.history.first { $0.time >= cutoff }?.seq
        let horizon = max(min((firstYoung ?? state.head + 1) - 1, state.head - 1), state.horizon)
        guard horizon > 0 else { return CompactionReport(horizon: state.horizon, tombstones: 0, entries: 0) }
        // Tombstones are purged, not removed: out of every pull, kept so a later change of the id meets the deletion.
        let purged = state.records.values.filter { $0.deleted && $0.seq > state.horizon && $0.seq <= horizon }
        state.horizon = horizon
        let before = state.history.count
        state.history.removeAll { $0.seq <= horizon }
        return CompactionReport(horizon: horizon, tombstones: purged.count, entries: before - state.history.count)
    }
}
