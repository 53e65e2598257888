import ExpenseCore
import ExpenseProtocol

extension Ledger {
    /// `stats` for the network front: runs on the ledger's thread and calls `completion` there.
    public nonisolated func statistics(_ query: StatisticsQuery,
                                       completion: @escaping @Sendable (Result<StatsResult, any Error>) -> Void) {
        perform { ledger in completion(Result { try ledger.openEngine().statistics(query) }) }
    }
}

extension RequestDispatcher {
    /// `stats`: the range resolved with the client's `today` (else the daemon's local day), computed on the
    /// ledger's thread, and refused with `result_too_large` when the answer would not fit in one line.
    func statsPlan(_ request: StatsRequest, id: RequestID) throws(RPCError) -> Plan {
        let query = try request.query(defaultToday: CalendarDay.today())
        let ledger = ledger, log = log, limit = maximumLineLength
        return .deferred { reply in
            ledger.statistics(query) { result in
                let line = Self.encode(result, id: id, log: log)
                reply(line.count > limit ? RPCResponse.error(id: id, StatsRequest.resultTooLarge(bytes: line.count, limit: limit)) : line)
            }
        }
    }
}
