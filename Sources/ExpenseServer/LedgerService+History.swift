import ExpenseCore
import ExpenseProtocol
import Foundation

extension LedgerService {
    /// Doubles that do not keep history drop `who`.
    public func push(clientId: UUID, items: [PushItem], who: String?,
                     completion: @escaping @Sendable (Result<PushResult, any Error>) -> Void) {
        push(clientId: clientId, items: items, completion: completion)
    }

    /// Doubles that do not keep history answer an empty page.
    public func history(_ request: HistoryRequest, completion: @escaping @Sendable (Result<HistoryResult, any Error>) -> Void) {
        Task { completion(.success(HistoryResult(entries: [], cursor: await head(), more: false, horizon: 0))) }
    }
}

extension Ledger {
    /// A page of history (Protocol.md §5.8), read on the ledger's thread; `completion` runs there.
    public nonisolated func history(_ request: HistoryRequest,
                                    completion: @escaping @Sendable (Result<HistoryResult, any Error>) -> Void) {
        perform { ledger in completion(Result { try ledger.openEngine().history(request) }) }
    }

    /// ``history(_:completion:)`` for tests and tools.
    public func history(_ request: HistoryRequest) async throws -> HistoryResult {
        try openEngine().history(request)
    }

    /// Removes tombstones and history entries of changes made before `cutoff` (seconds since 1970), on the
    /// ledger's thread, between group commits (the schedule of `expensed serve --compact-after`).
    package nonisolated func compact(before cutoff: Int64,
                                     completion: @escaping @Sendable (Result<CompactionReport, any Error>) -> Void) {
        perform { ledger in completion(Result { try ledger.openEngine().compact(before: cutoff) }) }
    }

    /// ``compact(before:completion:)`` for tests.
    package func compact(before cutoff: Int64) async throws -> CompactionReport {
        try openEngine().compact(before: cutoff)
    }
}
