import ExpenseCore
import ExpenseProtocol

extension Ledger {
    /// `stats` for the network front: runs on the ledger's thread and calls `completion` there.
    public nonisolated func statistics(_ query: StatisticsQuery,
                                       completion: @escaping @Sendable (Result<StatsResult, any Error>) -> Void) {
        perform { ledger in completion(Result { try ledger.openEngine().statistics(query) }) }
    }
}
