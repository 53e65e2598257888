import ExpenseCore

/// A request type of the protocol, paired with its method name and result type
/// (the pattern of sourcekit-lsp's `RequestType`).
public protocol RPCMethodRequest: Sendable {
    /// The result this method answers with.
    associatedtype Response: RPCResult
    /// The JSON-RPC method name, such as `push`.
    static var method: String { get }
    /// Writes the params object (client side).
    func writeParams(to writer: inout JSONWriter)
    /// Reads the params sent by a client (daemon side); `nil` when omitted.
    /// - Throws: ``RPCError`` (−32602 naming the parameter, or the method's own codes).
    init(params: JSONValue?) throws(RPCError)
}

/// A result type: written by the daemon, read by the client.
public protocol RPCResult: Sendable {
    /// Writes the result value (daemon side).
    func write(to writer: inout JSONWriter)
    /// Reads the result value (client side).
    /// - Throws: ``ProtocolDecodingError`` naming the member.
    init(json: JSONValue) throws(ProtocolDecodingError)
    /// About how many bytes ``write(to:)`` writes, so the response buffer is reserved once, not grown by copies.
    var encodedSizeHint: Int { get }
    /// A whole answer line read straight into a result, when the line has the one shape this type expects (a pull
    /// page, read without building JSON values); `nil` for anything else (an error, another shape), which the
    /// client then reads the general way (``init(json:)`` of the parsed line). Both ways give the same result.
    static func decodeAnswerLine(_ line: [UInt8]) -> (id: RequestID, result: Self)?
}

extension RPCResult {
    /// Small results: the response writer's default reservation.
    public var encodedSizeHint: Int { 128 }

    /// No fast reading: every answer takes the general path.
    public static func decodeAnswerLine(_ line: [UInt8]) -> (id: RequestID, result: Self)? { nil }
}

extension RPCMethodRequest {
    /// The params as JSON text bytes (no newline).
    public var paramsBytes: [UInt8] {
        var writer = JSONWriter()
        writeParams(to: &writer)
        return writer.bytes
    }

    /// The full request line for this request, `\n` included.
    public func requestLine(id: RequestID) -> [UInt8] { RPCClientCodec.request(id: id, self) }
}

extension RPCResult {
    /// The result as JSON bytes (no envelope, no newline).
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }
}

/// Reads the members of a request's params (daemon side), turning every problem into −32602 naming the member.
/// `null` reads as absent for optional members; unknown members are ignored (forward compatibility).
struct ParamsReader {
    let members: [String: JSONValue]

    init(_ params: JSONValue?) throws(RPCError) {
        switch params {
        case nil, .null?: members = [:]
        case .object(let members)?: self.members = members
        default: throw .invalidParams("params must be an object of named parameters", field: nil)
        }
    }

    func optional(_ key: String) -> JSONValue? {
        guard let value = members[key], !value.isNull else { return nil }
        return value
    }

    func string(_ key: String) throws(RPCError) -> String {
        guard let value = optional(key) else { throw .invalidParams("\(key) is missing", field: key) }
        guard let text = value.stringValue else { throw .invalidParams("\(key) must be a string", field: key) }
        return text
    }

    func optionalString(_ key: String) throws(RPCError) -> String? {
        guard let value = optional(key) else { return nil }
        guard let text = value.stringValue else { throw .invalidParams("\(key) must be a string", field: key) }
        return text
    }

    /// An optional day `YYYY-MM-DD`, checked by the one validation (``ExpenseCore/ExpenseValidator/validateDate(_:)``).
    func optionalDay(_ key: String) throws(RPCError) -> CalendarDay? {
        guard let text = try optionalString(key) else { return nil }
        guard let day = try? ExpenseValidator.validateDate(text) else {
            throw .invalidParams("\(key) must be a real day YYYY-MM-DD from 1900-01-01 to 9999-12-31", field: key)
        }
        return day
    }

    /// `tags` of `summary` and `stats`: an optional array of tags, each checked by the expense's own rule
    /// (``ExpenseCore/ExpenseTags/problem(with:)``), at most ``ExpenseCore/ExpenseTags/maximumCount``; empty when absent.
    func tags() throws(RPCError) -> [String] {
        guard let value = optional("tags") else { return [] }
        guard let elements = value.arrayValue else { throw .invalidParams("tags must be an array of strings", field: "tags") }
        var tags: [String] = []
        for element in elements {
            guard let tag = element.stringValue else { throw .invalidParams("tags must be an array of strings", field: "tags") }
            if let problem = ExpenseTags.problem(with: tag) { throw .invalidParams("tags: \(problem)", field: "tags") }
            tags.append(tag)
        }
        guard tags.count <= ExpenseTags.maximumCount else {
            throw .invalidParams("tags: at most \(ExpenseTags.maximumCount)", field: "tags")
        }
        return ExpenseTags.normalized(tags)
    }

    func int64(_ key: String) throws(RPCError) -> Int64 {
        guard let value = optional(key) else { throw .invalidParams("\(key) is missing", field: key) }
        guard let number = value.int64Value else { throw .invalidParams("\(key) must be an integer", field: key) }
        return number
    }

    func optionalBool(_ key: String) throws(RPCError) -> Bool? {
        guard let value = optional(key) else { return nil }
        guard let flag = value.boolValue else { throw .invalidParams("\(key) must be true or false", field: key) }
        return flag
    }

    func optionalInt64(_ key: String) throws(RPCError) -> Int64? {
        guard let value = optional(key) else { return nil }
        guard let number = value.int64Value else { throw .invalidParams("\(key) must be an integer", field: key) }
        return number
    }

    /// A paged method's `limit`: `defaultLimit` when absent; outside `range` is −32602 naming it, the one
    /// message of every such limit (`pull`, `history`).
    func limit(default defaultLimit: Int, in range: ClosedRange<Int>) throws(RPCError) -> Int {
        let limit = try optionalInt64("limit") ?? Int64(defaultLimit)
        guard limit >= Int64(range.lowerBound), limit <= Int64(range.upperBound) else {
            throw .invalidParams("limit must be from \(range.lowerBound) to \(range.upperBound)", field: "limit")
        }
        return Int(limit)
    }
}
