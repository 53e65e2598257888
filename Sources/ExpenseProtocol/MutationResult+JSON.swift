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
    /// `{"mutationId":…,"seq":…,"status":"applied","version":…}`, `{"mutationId":…,"status":"duplicate"}`,
    /// `{"current":<Record>,"mutationId":…,"status":"conflict"}`,
    /// `{"error":{"field":…,"message":…,"reason":…},"mutationId":…,"status":"rejected"}`.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        switch status {
        case .applied(let version, let seq):
            writer.member("mutationId", mutationId)
            writer.member("seq", seq)
            writer.member("status", "applied")
            writer.member("version", version)
        case .duplicate:
            writer.member("mutationId", mutationId)
            writer.member("status", "duplicate")
        case .conflict(let current):
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

    /// Reads one mutation result sent by the daemon.
    /// - Throws: ``ProtocolDecodingError``.
    public init(json: JSONValue, path: String = "result") throws(ProtocolDecodingError) {
        let reader = try ResultReader(json, path: path)
        let mutationId = try reader.int64("mutationId")
        let status: MutationStatus
        switch try reader.string("status") {
        case "applied": status = .applied(version: try reader.int64("version"), seq: try reader.int64("seq"))
        case "duplicate": status = .duplicate
        case "conflict": status = .conflict(current: try Record(json: try reader.value("current"), path: reader.sub("current")))
        case "rejected":
            let error = try ResultReader(try reader.value("error"), path: reader.sub("error"))
            status = .rejected(MutationRejection(reason: try error.string("reason"), field: try error.optionalString("field"),
                                                 message: try error.optionalString("message") ?? ""))
        case let other:
            throw .invalidMember(path: reader.sub("status"), detail: "unknown status \(DisplayText.quoted(other))")
        }
        self.init(mutationId: mutationId, status: status)
    }
}
