import ExpenseCore
import ExpenseProtocol

extension Ledger {
    /// `balances` for the network front (``LedgerEngine/balances(currency:)``): runs on the ledger's thread and
    /// calls `completion` there.
    public nonisolated func balances(currency: Currency?,
                                     completion: @escaping @Sendable (Result<BalancesResult, any Error>) -> Void) {
        perform { ledger in completion(Result { try ledger.openEngine().balances(currency: currency) }) }
    }
}
