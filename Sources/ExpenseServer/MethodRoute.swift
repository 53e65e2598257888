import ExpenseProtocol

/// How the daemon answers one method of ``ProtocolMethods/all``.
enum MethodRoute: Sendable {
    /// `hello`: answered by the session's state (the first request opens the session; a second is refused).
    case hello
    /// `watch`: changes the session (it registers the connection's watcher).
    case watch
    /// Answered by the session's ledger, through the ``RequestDispatcher``.
    case ledger(RequestDispatcher.Handler)

    /// The method table: the one list of what the daemon answers, read by ``SessionStateMachine`` (which method
    /// may come when) and by ``RequestDispatcher`` (how the ledger answers it); any other name is −32601
    /// `method_not_found`. Its names are exactly ``ProtocolMethods/all`` (a test pins it).
    static let table: [String: MethodRoute] = [
        HelloRequest.method: .hello,
        WatchRequest.method: .watch,
        PingRequest.method: .ledger { dispatcher, request, id throws(RPCError) in try dispatcher.ping(request, id: id) },
        PushRequest.method: .ledger { dispatcher, request, id throws(RPCError) in try dispatcher.push(request, id: id) },
        PullRequest.method: .ledger { dispatcher, request, id throws(RPCError) in try dispatcher.pull(request, id: id) },
        SummaryRequest.method: .ledger { dispatcher, request, id throws(RPCError) in try dispatcher.summary(request, id: id) },
        StatsRequest.method: .ledger { dispatcher, request, id throws(RPCError) in try dispatcher.stats(request, id: id) },
        HistoryRequest.method: .ledger { dispatcher, request, id throws(RPCError) in try dispatcher.history(request, id: id) },
        BalancesRequest.method: .ledger { dispatcher, request, id throws(RPCError) in try dispatcher.balances(request, id: id) },
    ]
}
