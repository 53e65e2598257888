import ExpenseCore
import ExpenseProtocol

extension Ledger {
    /// `balances` for the network front (``LedgerEngine/balances(currency:)``): runs on the ledger's thread and
    /// calls `completion` there; with a `conversion`, every amount converted into one currency, `at: end` valuing
    /// them on `today` (``LedgerEngine/balances(currency:converting:today:)``).
    public nonisolated func balances(currency: Currency?, conversion: ViewConversion?, today: CalendarDay,
                                     completion: @escaping @Sendable (Result<BalancesResult, any Error>) -> Void) {
        perform { ledger in
            completion(Result {
                let engine = try ledger.openEngine()
                guard let conversion else { return try engine.balances(currency: currency) }
                return try engine.balances(currency: currency, converting: conversion, today: today)
            })
        }
    }
}
