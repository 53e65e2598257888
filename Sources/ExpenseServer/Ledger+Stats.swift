import ExpenseCore
import ExpenseProtocol

extension Ledger {
    /// `stats` for the network front: runs on the ledger's thread and calls `completion` there; with a
    /// `conversion`, every amount converted into one currency (``LedgerEngine/statistics(_:converting:)``).
    public nonisolated func statistics(_ query: StatisticsQuery, conversion: ViewConversion?,
                                       completion: @escaping @Sendable (Result<StatsResult, any Error>) -> Void) {
        perform { ledger in
            completion(Result {
                let engine = try ledger.openEngine()
                guard let conversion else { return try engine.statistics(query) }
                return try engine.statistics(query, converting: conversion)
            })
        }
    }
}
