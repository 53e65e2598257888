/// One JSON-RPC 2.0 request (or client notification, when `id` is nil) as read from one line.
public struct RPCRequest: Hashable, Sendable {
    /// `nil` for a notification: the daemon neither executes nor answers it.
    public var id: RequestID?
    public var method: String
    /// What follows the method: the params as sent, or a push's already decoded from the line.
    public enum Payload: Hashable, Sendable {
        /// The params as sent; `nil` when omitted or `null`.
        case json(JSONValue?)
        /// A push's params decoded straight from the line (``RPCRequest/parseDecodingPush(_:)``, the daemon's
        /// fast path); the push handler reads them with ``RPCRequest/pushRequest()``.
        case decodedPush(PushRequest)
    }

    public var payload: Payload

    /// The params as sent (`nil` when omitted or `null`); a push decoded from the line has none here
    /// (``Payload/decodedPush(_:)``: its handler reads it with ``pushRequest()``).
    public var params: JSONValue? {
        get { if case .json(let params) = payload { params } else { nil } }
        set { payload = .json(newValue) }
    }

    public init(id: RequestID?, method: String, params: JSONValue?) {
        self.id = id
        self.method = method
        self.payload = .json(params)
    }

    /// Whether this is a notification (no `id`).
    public var isNotification: Bool { id == nil }

    /// Reads one line (without its `\n`; a trailing `\r` already stripped).
    ///
    /// Bad JSON or bad UTF-8 is −32700 with no id. Valid JSON that is not a request is −32600 and carries the
    /// id when one could be read: a duplicate key (`duplicate_key`, no id since the object was not read),
    /// a non-object (`invalid_request`), a batch array (`batch_not_supported`), a missing or wrong
    /// `"jsonrpc":"2.0"`, a missing or non-string `method`, an `id` that is not a number or string, or
    /// `params` that is neither object, array nor null.
    public static func parse(_ line: [UInt8]) -> Result<RPCRequest, RPCRequestFailure> {
        line.withUnsafeBufferPointer { parse($0) }
    }

    /// Reads one line held in a slice of a larger buffer.
    public static func parse(_ line: ArraySlice<UInt8>) -> Result<RPCRequest, RPCRequestFailure> {
        line.withUnsafeBufferPointer { parse($0) }
    }

    /// Reads one line held in memory the caller keeps alive for the call.
    public static func parse(_ line: UnsafeRawBufferPointer) -> Result<RPCRequest, RPCRequestFailure> {
        parse(line.bindMemory(to: UInt8.self))
    }

    /// Reads one line held in memory the caller keeps alive for the call.
    public static func parse(_ line: UnsafeBufferPointer<UInt8>) -> Result<RPCRequest, RPCRequestFailure> {
        // Almost every line is a plain envelope: read it without building a dictionary (RPCEnvelopeReader.swift);
        // anything unusual, valid or not, takes the general path below, which decides every error.
        if let envelope = RPCEnvelopeReader.read(line) {
            return interpret(id: envelope.id, jsonrpc: envelope.jsonrpc, method: envelope.method, params: envelope.params)
        }
        return parseGenerally(line)
    }

    /// The general reader: the whole line as a ``JSONValue``, then ``interpret(_:)``. The fast path of
    /// ``parse(_:)-(UnsafeBufferPointer<UInt8>)`` must give exactly its results (RPCEnvelopeReaderTests).
    static func parseGenerally(_ line: UnsafeBufferPointer<UInt8>) -> Result<RPCRequest, RPCRequestFailure> {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch .duplicateKey(let key) {
            return .failure(RPCRequestFailure(id: nil, error: .invalidRequest(
                JSONParseError.duplicateKey(key).description, reason: "duplicate_key")))
        } catch {
            return .failure(RPCRequestFailure(id: nil, error: .parseError(error)))
        }
        return interpret(value)
    }

    /// Checks the envelope of an already parsed message.
    public static func interpret(_ value: JSONValue) -> Result<RPCRequest, RPCRequestFailure> {
        guard case .object(let members) = value else {
            if case .array = value {
                return .failure(RPCRequestFailure(id: nil, error: .invalidRequest(
                    "batch requests are not supported in protocol \(ProtocolVersion.current)", reason: "batch_not_supported")))
            }
            return .failure(RPCRequestFailure(id: nil, error: .invalidRequest("a request must be a JSON object")))
        }
        return interpret(id: members["id"], jsonrpc: members["jsonrpc"], method: members["method"], params: members["params"])
    }

    /// Checks the envelope from its four members (`nil`: absent); other members are ignored.
    static func interpret(id idMember: JSONValue?, jsonrpc: JSONValue?, method methodMember: JSONValue?,
                          params paramsMember: JSONValue?) -> Result<RPCRequest, RPCRequestFailure> {
        var id: RequestID?
        if let idValue = idMember {
            guard let readable = RequestID(json: idValue) else {
                return .failure(RPCRequestFailure(id: nil, error: .invalidRequest("id must be a number or a string", field: "id")))
            }
            id = readable
        }
        guard case .string("2.0")? = jsonrpc else {
            return .failure(RPCRequestFailure(id: id, error: .invalidRequest("\"jsonrpc\" must be \"2.0\"", field: "jsonrpc")))
        }
        guard case .string(let method)? = methodMember else {
            return .failure(RPCRequestFailure(id: id, error: .invalidRequest("\"method\" must be a string", field: "method")))
        }
        var params: JSONValue?
        switch paramsMember {
        case nil, .null?: params = nil
        case let structured? where structured.objectValue != nil || structured.arrayValue != nil: params = structured
        default:
            return .failure(RPCRequestFailure(id: id, error: .invalidRequest("\"params\" must be an object", field: "params")))
        }
        return .success(RPCRequest(id: id, method: method, params: params))
    }
}

/// A line that is not a valid request: the error to answer with and the id to echo (`nil` answers `null`).
public struct RPCRequestFailure: Error, Hashable, Sendable {
    public var id: RequestID?
    public var error: RPCError

    public init(id: RequestID?, error: RPCError) {
        self.id = id
        self.error = error
    }

    /// The full response line, `\n` included.
    public var responseLine: [UInt8] { RPCResponse.error(id: id, error) }
}
