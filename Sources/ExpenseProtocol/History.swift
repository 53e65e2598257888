import ExpenseCore
import FoundationEssentials

/// `history` `{"id"?,"since"?,"sinceTime"?,"limit"?}` (Protocol.md §5.8): the history entries of one record, or
/// the ledger's activity, with `seq` above `since`, in `seq` order, paged.
public struct HistoryRequest: RPCMethodRequest, Hashable {
    public typealias Response = HistoryResult
    public static let method = "history"
    /// The limit when none is sent.
    public static let defaultLimit = 500
    /// The allowed limits.
    public static let limitRange = 1...1000

    /// Only this record's entries; `nil`: every record's.
    public var id: UUID?
    /// Only entries with a `seq` above this (0: from the oldest kept).
    public var since: Int64
    /// Only entries made at or after this daemon time (seconds since 1970-01-01T00:00:00Z).
    public var sinceTime: Int64?
    /// At most this many entries.
    public var limit: Int
    /// The kinds besides expenses whose entries are wanted (Protocol.md §10.1): empty, as a protocol-1 client
    /// asks, means expenses only.
    public var kinds: Set<RecordKind>

    public init(id: UUID? = nil, since: Int64 = 0, sinceTime: Int64? = nil, limit: Int = HistoryRequest.defaultLimit,
                kinds: Set<RecordKind> = []) {
        self.id = id
        self.since = since
        self.sinceTime = sinceTime
        self.limit = limit
        self.kinds = kinds.subtracting([.expense])
    }

    /// Whether entries of records of `kind` are asked for.
    public func wants(_ kind: RecordKind) -> Bool { kind == .expense || kinds.contains(kind) }

    /// Reads the params; every member is optional and `params` may be omitted.
    ///
    /// `id` not a UUID string, `since` or `sinceTime` not an integer ≥ 0, `limit` outside 1…1000:
    /// −32602 `invalid_params` naming the member.
    /// - Throws: ``RPCError``.
    public init(params: JSONValue?) throws(RPCError) {
        let reader = try ParamsReader(params)
        var id: UUID?
        if let text = try reader.optionalString("id") {
            guard let parsed = UUIDText.parse(text) else { throw .invalidParams("id must be a UUID", field: "id") }
            id = parsed
        }
        let since = try reader.optionalInt64("since") ?? 0
        guard since >= 0 else { throw .invalidParams("since must be 0 or a seq", field: "since") }
        let sinceTime = try reader.optionalInt64("sinceTime")
        if let sinceTime, sinceTime < 0 {
            throw .invalidParams("sinceTime must be seconds since 1970-01-01T00:00:00Z, 0 or more", field: "sinceTime")
        }
        let limit = try reader.limit(default: Self.defaultLimit, in: Self.limitRange)
        self.init(id: id, since: since, sinceTime: sinceTime, limit: limit,
                  kinds: Set(try HelloRequest.kinds(reader.optional("kinds"))))
    }

    /// Writes `{"id"?,"kinds"?,"limit","since","sinceTime"?}`.
    public func writeParams(to writer: inout JSONWriter) {
        writer.beginObject()
        if let id {
            writer.key("id")
            writer.uuid(id)
        }
        if !kinds.isEmpty {
            writer.key("kinds")
            writer.beginArray()
            for kind in kinds.sorted() { writer.string(kind.rawValue) }
            writer.endArray()
        }
        writer.member("limit", Int64(limit))
        writer.member("since", since)
        if let sinceTime { writer.member("sinceTime", sinceTime) }
        writer.endObject()
    }
}

/// The answer to `history`: `{"cursor","entries":[…],"horizon","more"}`.
public struct HistoryResult: Hashable, Sendable {
    public var entries: [HistoryEntry]
    /// Pass as the next `since`: the last entry's `seq` when `more` is true, else the ledger's head.
    public var cursor: Int64
    /// `true` when further entries follow.
    public var more: Bool
    /// The purge horizon: entries and tombstones at or below this `seq` older than the ledger's compaction age
    /// may have been removed (0: never compacted).
    public var horizon: Int64

    public init(entries: [HistoryEntry], cursor: Int64, more: Bool, horizon: Int64) {
        self.entries = entries
        self.cursor = cursor
        self.more = more
        self.horizon = horizon
    }
}

extension HistoryResult: RPCResult {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("cursor", cursor)
        writer.key("entries")
        writer.beginArray()
        for entry in entries { entry.write(to: &writer) }
        writer.endArray()
        writer.member("horizon", horizon)
        writer.member("more", more)
        writer.endObject()
    }

    public var encodedSizeHint: Int { 64 + entries.count * 320 }

    public init(json: JSONValue) throws(ProtocolDecodingError) {
        let reader = try ResultReader(json, path: "result")
        var entries: [HistoryEntry] = []
        for (index, element) in try reader.array("entries").enumerated() {
            entries.append(try HistoryEntry(json: element, path: "result.entries[\(index)]"))
        }
        self.init(entries: entries, cursor: try reader.int64("cursor"), more: try reader.bool("more"),
                  horizon: try reader.int64("horizon"))
    }

    /// The most bytes the end of a page's line takes after its last entry:
    /// `],"horizon":<19 digits>,"more":false}}` plus the cursor written before the entries.
    static let maximumTailBytes = 48

    /// The response line, cut by bytes as a pull page is (Protocol.md §5.3, §5.8): entries are added in order
    /// while the line stays within `maximumLineLength`; the first that would pass it ends the page (`more` true,
    /// `cursor` the last kept entry's `seq`). A page always holds its first entry, so paging always advances.
    /// - Returns: the whole line, `\n` included.
    public func responseLine(id: RequestID?, maximumLineLength: Int) -> [UInt8] {
        var size = 0
        var count = 0
        // The members are written in byte order, `cursor` first, so the entries are sized before the cursor is known.
        let fixed = 64 + Self.maximumTailBytes
        for entry in entries {
            var writer = JSONWriter()
            entry.write(to: &writer)
            if count > 0, fixed + size + 1 + writer.bytes.count > maximumLineLength { break }
            size += writer.bytes.count + 1
            count += 1
        }
        let cut = count < entries.count
        var page = self
        page.entries = Array(entries.prefix(count))
        page.more = cut || more
        if cut { page.cursor = entries[count - 1].seq }
        return RPCResponse.success(id: id, result: page)
    }
}
