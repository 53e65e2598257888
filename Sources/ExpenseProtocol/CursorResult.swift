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
