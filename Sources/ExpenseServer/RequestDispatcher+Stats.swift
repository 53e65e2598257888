import ExpenseCore
import ExpenseProtocol

extension RequestDispatcher {
    /// `stats`: the range resolved with the client's `today` (else the daemon's local day), computed on the
    /// ledger's thread (converted with `in`), and refused with `result_too_large` when the answer would not fit in one line.
    func stats(_ request: RPCRequest, id: RequestID) throws(RPCError) -> Plan {
        let stats = try StatsRequest(params: request.params)
        let query = try stats.query(defaultToday: CalendarDay.today()), conversion = stats.conversion
        let ledger = ledger, log = log, limit = maximumLineLength
        return .deferred { reply in
            ledger.statistics(query, conversion: conversion) { result in
                let line = Self.encode(result, id: id, log: log)
                let answer = line.count > limit
                    ? RPCResponse.error(id: id, StatsRequest.resultTooLarge(bytes: line.count, limit: limit)) : line
                reply { answer }
            }
        }
    }
}
