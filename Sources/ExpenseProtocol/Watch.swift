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
