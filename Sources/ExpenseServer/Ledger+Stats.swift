import ExpenseCore
import ExpenseProtocol

extension Ledger {
    /// `stats` for the network front: runs on the ledger's thread and calls `completion` there; with a
    /// `conversion`, every amount converted into one currency, and with tags in the query only the expenses that
    /// carry them, both read from the expenses (``LedgerEngine/statistics(_:fromRecords:)``).
    public nonisolated func statistics(_ query: StatisticsQuery, conversion: ViewConversion?,
                                       completion: @escaping @Sendable (Result<StatsResult, any Error>) -> Void) {
        perform { ledger in
            completion(Result {
                let engine = try ledger.openEngine()
                if conversion == nil && query.tags.isEmpty { return try engine.statistics(query) }
                return try engine.statistics(query, fromRecords: conversion)
            })
        }
    }
}
