import ExpenseCore
extension MutationRejection {
    /// Writes `{"field"?,"message","reason"}`.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let field { writer.member("field", field) }
        writer.member("message", message)
        writer.member("reason", reason)
        writer.endObject()
    }
}

extension MutationResult {
    /// Writes one of (keys sorted):
    /// `{"mutationId":…,"record"?:<record>,"seq":…,"status":"applied","version":…}` (`record` when ``record`` is
    /// set),
    /// `{"mutationId":…,"original"?:<outcome>,"status":"duplicate"}`,
    /// `{"current":<Record>,"mutationId":…,"status":"conflict"}`,
    /// `{"error":{"field":…,"message":…,"reason":…},"mutationId":…,"status":"rejected"}`.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        switch status {
        case .applied(let version, let seq):
            // The answer of almost every mutation: its keys and status as fixed fragments, the bytes `member(_:_:)`
            // writes (MutationResultBytesTests compares them on seeded values).
            writer.raw("\"mutationId\":")
            writer.int64(mutationId)
            if let record {
                writer.raw(",\"record\":")
                record.write(to: &writer)
            }
            writer.raw(",\"seq\":")
            writer.int64(seq)
            writer.raw(",\"status\":\"applied\",\"version\":")
            writer.int64(version)
        case .duplicate(let original):
            writer.member("mutationId", mutationId)
            if let original {
                writer.key("original")
                original.write(to: &writer)
            }
            writer.member("status", "duplicate")
        case .conflict(let current):
            writer.key("current")
            current.write(to: &writer)
            writer.member("mutationId", mutationId)
            writer.member("status", "conflict")
        case .dataConflict(let current):
            writer.key("current")
            current.write(to: &writer)
            writer.member("mutationId", mutationId)
            writer.member("status", "conflict")
        case .rejected(let rejection):
            writer.key("error")
            rejection.write(to: &writer)
            writer.member("mutationId", mutationId)
            writer.member("status", "rejected")
        }
        writer.endObject()
    }

    /// Reads one mutation result sent by the daemon. A `duplicate`'s `original` that cannot be read is taken
    /// as absent (the client then falls back to pulling, Protocol.md §5.2); so is an `applied` answer's `record`
    /// that cannot be read, or that is not at the answer's version and seq (the client then works the record
    /// out from its own change, as for a daemon that sends none). A `record` is read as a pulled one is
    /// (``AppliedRecord/init(json:path:)``), and only beside `applied`.
    /// - Throws: ``ProtocolDecodingError``.
    public init(json: JSONValue, path: String = "result") throws(ProtocolDecodingError) {
        let reader = try ResultReader(json, path: path)
        let mutationId = try reader.int64("mutationId")
        let status: MutationStatus
        var record: AppliedRecord?
        switch try reader.string("status") {
        case "duplicate":
            let original = reader.members["original"].flatMap { value in try? MutationOutcome(json: value, path: reader.sub("original")) }
            status = .duplicate(original: original)
        case let other:
            guard let outcome = try MutationOutcome(reader, status: other) else {
                throw .invalidMember(path: reader.sub("status"), detail: "unknown status \(DisplayText.quoted(other))")
            }
            status = outcome.status
            if case .applied(let version, let seq) = status, let sent = reader.members["record"],
               let read = try? AppliedRecord(json: sent, path: reader.sub("record")), read.version == version, read.seq == seq {
                record = read
            }
        }
        self.init(mutationId: mutationId, status: status, record: record)
    }
}

extension MutationOutcome {
    /// Writes `{"seq":…,"status":"applied","version":…}`, `{"current":<Record>,"status":"conflict"}` or
    /// `{"error":{…},"status":"rejected"}`: a result without its `mutationId` (a `duplicate`'s `original`).
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        switch self {
        case .applied(let version, let seq):
            writer.member("seq", seq)
            writer.member("status", "applied")
            writer.member("version", version)
        case .conflict(let current):
            writer.key("current")
            current.write(to: &writer)
            writer.member("status", "conflict")
        case .dataConflict(let current):
            writer.key("current")
            current.write(to: &writer)
            writer.member("status", "conflict")
        case .rejected(let rejection):
            writer.key("error")
            rejection.write(to: &writer)
            writer.member("status", "rejected")
        }
        writer.endObject()
    }

    /// Reads an outcome object (a `duplicate`'s `original`).
    /// - Throws: ``ProtocolDecodingError``, also for an unknown status.
    public init(json: JSONValue, path: String) throws(ProtocolDecodingError) {
        let reader = try ResultReader(json, path: path)
        let status = try reader.string("status")
        guard let outcome = try Self(reader, status: status) else {
            throw .invalidMember(path: reader.sub("status"), detail: "unknown status \(DisplayText.quoted(status))")
        }
        self = outcome
    }

    /// The outcome `status` names, with its members from `reader`; `nil` for a status that is not an outcome.
    init?(_ reader: ResultReader, status: String) throws(ProtocolDecodingError) {
        switch status {
        case "applied": self = .applied(version: try reader.int64("version"), seq: try reader.int64("seq"))
        case "conflict":
            let current = try reader.value("current")
            // A `current` with a `kind` member is a budget, rule or setting (Protocol.md §10).
            if current["kind"] != nil {
                self = .dataConflict(current: try DataRecord(json: current, path: reader.sub("current")))
            } else {
                self = .conflict(current: try Record(json: current, path: reader.sub("current")))
            }
        case "rejected":
            let error = try ResultReader(try reader.value("error"), path: reader.sub("error"))
            self = .rejected(MutationRejection(reason: try error.string("reason"), field: try error.optionalString("field"),
                                               message: try error.optionalString("message") ?? ""))
        default: return nil
        }
    }
}
