/// Every method of protocol 1: the names the daemon's dispatcher (a `switch` on the method) answers; any
/// other name is −32601 `method_not_found`.
public enum ProtocolMethods {
    public static let all: [String] = [HelloRequest.method, PushRequest.method, PullRequest.method, SummaryRequest.method,
                                       PingRequest.method, WatchRequest.method]
}
