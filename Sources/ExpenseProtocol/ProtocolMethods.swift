/// Every method of protocol 1 (Protocol.md §5): the names the daemon's method table
/// answers (`MethodRoute.table` in ExpenseServer, checked against this list by a test); any other name is −32601
/// `method_not_found`.
public enum ProtocolMethods {
    public static let all: [String] = [HelloRequest.method, PushRequest.method, PullRequest.method, SummaryRequest.method,
                                       PingRequest.method, WatchRequest.method, StatsRequest.method, HistoryRequest.method,
                                       BalancesRequest.method]
}
