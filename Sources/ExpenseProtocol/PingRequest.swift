/// `ping` `{}` → `{"cursor":N}`: a liveness check that also tells the ledger's head.
public struct PingRequest: RPCMethodRequest, Hashable {
    public typealias Response = CursorResult
    public static let method = "ping"

    public init() {}

    /// Accepts omitted params or any object (members ignored); an array is −32602.
    /// - Throws: ``RPCError``.
    public init(params: JSONValue?) throws(RPCError) { _ = try ParamsReader(params) }

    public func writeParams(to writer: inout JSONWriter) { writer.object { _ in } }
}

/// `watch` `{}` → `{"cursor":N}`: from then on the daemon sends this connection a `changed` notification
/// whenever the ledger's head moves past the last cursor it told it.
public struct WatchRequest: RPCMethodRequest, Hashable {
    public typealias Response = CursorResult
    public static let method = "watch"

    public init() {}

    /// Accepts omitted params or any object (members ignored); an array is −32602.
    /// - Throws: ``RPCError``.
    public init(params: JSONValue?) throws(RPCError) { _ = try ParamsReader(params) }

    public func writeParams(to writer: inout JSONWriter) { writer.object { _ in } }
}

/// `{"cursor":N}`: the result of `ping` and `watch`.
public struct CursorResult: RPCResult, Hashable {
    /// The ledger's head.
    public var cursor: Int64

    public init(cursor: Int64) { self.cursor = cursor }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("cursor", cursor)
        writer.endObject()
    }

    public init(json: JSONValue) throws(ProtocolDecodingError) {
        cursor = try ResultReader(json, path: "result").int64("cursor")
    }
}

/// The daemon's `changed` notification `{"cursor":N}` to a watching connection: the ledger's head is now `N`;
/// pull to catch up. Notifications may be coalesced: only the latest head matters.
public struct ChangedNotification: Hashable, Sendable {
    public static let method = "changed"
    public var cursor: Int64

    public init(cursor: Int64) { self.cursor = cursor }

    /// Writes the params `{"cursor":N}`.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("cursor", cursor)
        writer.endObject()
    }

    /// Reads the params of a `changed` notification.
    /// - Throws: ``ProtocolDecodingError``.
    public init(params: JSONValue?) throws(ProtocolDecodingError) {
        cursor = try ResultReader(params ?? .null, path: "params").int64("cursor")
    }
}

/// Every method of protocol 1: the names the daemon's dispatcher (a `switch` on the method) answers; any
/// other name is −32601 `method_not_found`.
public enum ProtocolMethods {
    public static let all: [String] = [HelloParams.method, PushRequest.method, PullParams.method, SummaryRequest.method,
                                       PingRequest.method, WatchRequest.method]
}
