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
