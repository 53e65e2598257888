import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

extension LedgerEngine {
    /// A page of history (Protocol.md §5.8): entries with `seq` above `request.since`, in `seq` order.
    /// - Precondition: `request.limit` is in ``HistoryRequest/limitRange`` (enforced by its params reader).
    package func history(_ request: HistoryRequest) throws -> HistoryResult {
        precondition(HistoryRequest.limitRange.contains(request.limit), "already enforced by HistoryRequest")
        do {
            var entries = try store.history(request, limit: request.limit + 1)
            let more = entries.count > request.limit
            if more { entries.removeLast() }
            let cursor = more ? (entries.last?.seq ?? store.head) : max(store.head, request.since)
            return HistoryResult(entries: entries, cursor: cursor, more: more, horizon: try store.purgeHorizon())
        } catch {
            throw LedgerError.storage(error)
        }
    }

    /// Removes tombstones and history entries of changes made before `cutoff` (seconds since 1970).
    package func compact(before cutoff: Int64) throws -> CompactionReport {
        do { return try store.compact(before: cutoff) } catch { throw LedgerError.storage(error) }
    }
}
