/// Encoders for what the daemon sends: each returns one complete line, trailing `\n` included.
///
/// The envelope is written `{"jsonrpc":"2.0","id":…,"result":…}` (envelope members in this conventional
/// order; members inside results are in sorted order).
public enum RPCResponse {
    /// A success response whose result `writeResult` writes (exactly one value).
    public static func success(id: RequestID?, capacity: Int = 128, _ writeResult: (inout JSONWriter) -> Void) -> [UInt8] {
        var writer = JSONWriter(capacity: capacity)
        writer.raw(#"{"jsonrpc":"2.0","id":"#)
        writer.requestID(id)
        writer.raw(#","result":"#)
        writeResult(&writer)
        writer.raw("}\n")
        return writer.bytes
    }

    /// A success response carrying a typed result.
    public static func success<Result: RPCResult>(id: RequestID?, result: Result) -> [UInt8] {
        success(id: id, capacity: result.encodedSizeHint + 64) { writer in result.write(to: &writer) }
    }

    /// A success response carrying any JSON value.
    public static func success(id: RequestID?, result: JSONValue) -> [UInt8] {
        success(id: id) { writer in writer.value(result) }
    }

    /// An error response; `id` nil is written `null` (parse errors, unreadable requests, unsolicited errors).
    public static func error(id: RequestID?, _ error: RPCError) -> [UInt8] {
        var writer = JSONWriter(capacity: 160)
        writer.raw(#"{"jsonrpc":"2.0","id":"#)
        writer.requestID(id)
        writer.raw(#","error":"#)
        error.write(to: &writer)
        writer.raw("}\n")
        return writer.bytes
    }

    /// A notification from the daemon: `{"jsonrpc":"2.0","method":…,"params":…}`.
    public static func notification(method: String, _ writeParams: (inout JSONWriter) -> Void) -> [UInt8] {
        var writer = JSONWriter(capacity: 96)
        writer.raw(#"{"jsonrpc":"2.0","method":"#)
        writer.string(method)
        writer.raw(#","params":"#)
        writeParams(&writer)
        writer.raw("}\n")
        return writer.bytes
    }

    /// The `changed` notification sent to a watching connection: `{"jsonrpc":"2.0","method":"changed","params":{"cursor":N}}`.
    public static func changed(cursor: Int64) -> [UInt8] {
        notification(method: ChangedNotification.method) { writer in ChangedNotification(cursor: cursor).write(to: &writer) }
    }
}
