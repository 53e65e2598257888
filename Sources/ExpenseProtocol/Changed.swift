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
