import ExpenseCore
import ExpenseProtocol

extension RequestDispatcher {
    /// `balances`: computed on the ledger's thread from its own records (converted with `in`, `at: end` on the
    /// client's `today`, else the daemon's local day). Read-only: allowed to every session that
    /// may read the ledger (a viewer's included), as `summary` is.
    func balances(_ request: RPCRequest, id: RequestID) throws(RPCError) -> Plan {
        let balances = try BalancesRequest(params: request.params)
        let ledger = ledger, log = log
        return .deferred { reply in
            ledger.balances(currency: balances.currency, conversion: balances.conversion, today: balances.today ?? CalendarDay.today()) { result in
                let line = Self.encode(result, id: id, log: log)
                reply { line }
            }
        }
    }
}
