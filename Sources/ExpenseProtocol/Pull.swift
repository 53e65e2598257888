import ExpenseCore

/// `pull` parameters.
public struct PullRequest: Hashable, Sendable {
    public var since: Int64
    public var limit: Int
    /// The kinds besides expenses the connection serves (from its `hello`, Protocol.md §10): not a wire member.
    public var kinds: Set<RecordKind>
    /// `false`: leave the expenses out and serve only the connection's other kinds (Protocol.md §10.1), for a
    /// client that syncs them apart; the wire member `expenses`, sent only when `false`.
    public var expenses: Bool
    /// For the pages after the first of a pull from 0: the head when that pull began (the first page's
    /// `hello` cursor serves). Those pages leave out the tombstones compaction purged at or below it, as the
    /// first page does; `nil`: a pull from a client's own cursor, which carries them (Protocol.md §5.3, §5.9).
    public var snapshot: Int64?
    /// The line the page's response must fit, the daemon's `maxLine` (Protocol.md §5.3): not a wire member. A
    /// store reads no further rows once the page passes it; `Int.max` when no line is written.
    public var maximumLineLength: Int

    public init(since: Int64 = 0, limit: Int = 1000, kinds: Set<RecordKind> = [], expenses: Bool = true,
                maximumLineLength: Int = .max, snapshot: Int64? = nil) {
        self.since = since
        self.limit = limit
        self.snapshot = snapshot
        self.kinds = kinds
        self.expenses = expenses
        self.maximumLineLength = maximumLineLength
    }
}

/// `pull` result: the latest state of each record changed after `since`, in `seq` order, tombstones included.
public struct PullResult: Hashable, Sendable {
    public var changes: [Record]
    /// The budgets, rules and settings changed, for a connection that asked for them (Protocol.md §10); on
    /// the wire they are in `changes`, merged with the expenses in `seq` order.
    public var dataChanges: [DataRecord]
    /// The seq of the last change returned when `more`, else the ledger's head.
    public var cursor: Int64
    public var more: Bool

    public init(changes: [Record], dataChanges: [DataRecord] = [], cursor: Int64, more: Bool) {
        self.changes = changes
        self.dataChanges = dataChanges
        self.cursor = cursor
        self.more = more
    }
}

extension PullRequest: RPCMethodRequest {
    public typealias Response = PullResult
    public static let method = "pull"
    /// The limit when none is sent.
    public static let defaultLimit = 1000
    /// The allowed limits.
    public static let limitRange = 1...10_000

    /// Reads `{"since":<Int ≥ 0, default 0>,"limit":<1…10000, default 1000>,"expenses":<Bool, default true>,
    /// "snapshot":<Int ≥ 0, optional>}`; `params` may be omitted.
    ///
    /// `since` not an integer or `limit` out of range: −32602 `invalid_params`; `since` below 0: −32602
    /// `invalid_cursor` (a `since` beyond the head is also `invalid_cursor`, checked by the ledger).
    /// - Throws: ``RPCError``.
    public init(params: JSONValue?) throws(RPCError) {
        let reader = try ParamsReader(params)
        let since = try reader.optionalInt64("since") ?? 0
        guard since >= 0 else { throw .invalidCursor("since must be 0 or a cursor returned by the daemon") }
        let limit = try reader.limit(default: Self.defaultLimit, in: Self.limitRange)
        let expenses = try reader.optionalBool("expenses") ?? true
        let snapshot = try reader.optionalInt64("snapshot")
        if let snapshot, snapshot < 0 { throw .invalidParams("snapshot must be a head the daemon announced", field: "snapshot") }
        self.init(since: since, limit: limit, expenses: expenses, snapshot: snapshot)
    }

    /// Writes `{"limit":…,"since":…}`, with `"expenses":false` first when the expenses are left out and
    /// `"snapshot"` last when there is one.
    public func writeParams(to writer: inout JSONWriter) {
        writer.beginObject()
        if !expenses { writer.member("expenses", false) }
        writer.member("limit", Int64(limit))
        writer.member("since", since)
        if let snapshot { writer.member("snapshot", snapshot) }
        writer.endObject()
    }
}

extension PullResult: RPCResult {
    /// Writes `{"cursor":…,"more":…,"changes":[Record…]}`: the page's cursor first, as
    /// ``EncodedPullPage/responseLine(id:maximumLineLength:)`` writes it (Protocol.md §5.3).
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("cursor", cursor)
        writer.member("more", more)
        writer.key("changes")
        writer.beginArray()
        for change in mergedChanges { change.write(to: &writer) }
        writer.endArray()
        writer.endObject()
    }

    /// One change of a page: an expense or another kind of record.
    enum Change {
        case expense(Record)
        case data(DataRecord)

        var seq: Int64 {
            switch self {
            case .expense(let record): record.seq
            case .data(let record): record.seq
            }
        }

        func write(to writer: inout JSONWriter) {
            switch self {
            case .expense(let record): record.write(to: &writer)
            case .data(let record): record.write(to: &writer)
            }
        }
    }

    /// ``changes`` and ``dataChanges`` in one `seq` order, as the wire carries them.
    var mergedChanges: [Change] {
        if dataChanges.isEmpty { return changes.map(Change.expense) }
        return (changes.map(Change.expense) + dataChanges.map(Change.data)).sorted { $0.seq < $1.seq }
    }

    /// A record is about 200 bytes (a 36-byte id, nine member names, a short category and note).
    public var encodedSizeHint: Int { 64 + changes.count * 256 }

    public init(json: JSONValue) throws(ProtocolDecodingError) {
        let reader = try ResultReader(json, path: "result")
        let elements = try reader.array("changes")
        var changes: [Record] = []
        var dataChanges: [DataRecord] = []
        changes.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            // A change with a `kind` member is a budget, rule or setting (Protocol.md §10).
            if element["kind"] != nil {
                dataChanges.append(try DataRecord(json: element, path: "result.changes[\(index)]"))
            } else {
                changes.append(try Record(json: element, path: "result.changes[\(index)]"))
            }
        }
        self.init(changes: changes, dataChanges: dataChanges, cursor: try reader.int64("cursor"), more: try reader.bool("more"))
    }
}

extension PullResult {
    /// The most bytes a page's response line takes beside the envelope, `{"changes":[` and its records: the
    /// commas and members of `"cursor":<19 digits>,"more":false,` and the closing `]}}`.
    static let maximumTailBytes = 47

    /// The response line for this page, cut by bytes (Protocol.md §5.3): ``EncodedPullPage/responseLine(id:maximumLineLength:)``
    /// of its records.
    /// - Returns: the whole line, `\n` included.
    public func responseLine(id: RequestID?, maximumLineLength: Int) -> [UInt8] {
        EncodedPullPage(self).responseLine(id: id, maximumLineLength: maximumLineLength)
    }
}
