import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

extension Ledger {
    /// A page of history (Protocol.md §5.8), read on the ledger's thread; `completion` runs there.
    public nonisolated func history(_ request: HistoryRequest,
                                    completion: @escaping @Sendable (Result<HistoryResult, any Error>) -> Void) {
        perform { ledger in completion(Result { try ledger.openEngine().history(request) }) }
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
