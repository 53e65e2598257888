/// What a client sends and reads: request lines out, responses and notifications in.
public enum RPCClientCodec {
    /// The full request line `{"jsonrpc":"2.0","id":…,"method":…,"params":…}\n`.
    public static func request<Request: RPCMethodRequest>(id: RequestID, _ request: Request) -> [UInt8] {
        var writer = JSONWriter(capacity: 128)
        writer.raw(#"{"jsonrpc":"2.0","id":"#)
        writer.requestID(id)
        writer.raw(#","method":"#)
        writer.string(Request.method)
        writer.raw(#","params":"#)
        request.writeParams(to: &writer)
        writer.raw("}\n")
        return writer.bytes
    }

    /// Reads one line from the daemon.
    /// - Throws: ``ProtocolDecodingError`` when it is neither a response nor a notification.
    public static func parse(_ line: [UInt8]) throws(ProtocolDecodingError) -> RPCIncoming {
        let value: JSONValue
        do { value = try JSONParser.parse(line) } catch { throw .invalidJSON(error) }
        return try RPCIncoming(json: value)
    }

    /// Reads one line from the daemon held in a slice of a larger buffer.
    /// - Throws: ``ProtocolDecodingError``.
    public static func parse(_ line: ArraySlice<UInt8>) throws(ProtocolDecodingError) -> RPCIncoming {
        let value: JSONValue
        do { value = try JSONParser.parse(line) } catch { throw .invalidJSON(error) }
        return try RPCIncoming(json: value)
    }
}

/// A message from the daemon: a response to a request (by id) or a notification such as `changed`.
public enum RPCIncoming: Hashable, Sendable {
    /// A response; `id` is nil for errors the daemon could not tie to a request (parse errors, `busy`).
    case response(id: RequestID?, outcome: Result<JSONValue, RPCError>)
    /// A notification (no id).
    case notification(method: String, params: JSONValue?)

    /// Reads an already parsed message.
    /// - Throws: ``ProtocolDecodingError``.
    public init(json: JSONValue) throws(ProtocolDecodingError) {
        guard case .object(let members) = json else { throw .notAMessage("not an object") }
        guard case .string("2.0")? = members["jsonrpc"] else { throw .notAMessage("no \"jsonrpc\":\"2.0\"") }
        if let methodValue = members["method"] {
            guard let method = methodValue.stringValue else { throw .invalidMember(path: "method", detail: "expected a string") }
            let params = members["params"].flatMap { $0.isNull ? nil : $0 }
            self = .notification(method: method, params: params)
            return
        }
        var id: RequestID?
        switch members["id"] {
        case nil, .null?: id = nil
        case let value?:
            guard let readable = RequestID(json: value) else { throw .invalidMember(path: "id", detail: "expected a number, a string or null") }
            id = readable
        }
        if let result = members["result"] {
            guard members["error"] == nil else { throw .notAMessage("both result and error") }
            self = .response(id: id, outcome: .success(result))
        } else if let error = members["error"] {
            self = .response(id: id, outcome: .failure(try RPCError(json: error)))
        } else {
            throw .notAMessage("neither result, error nor method")
        }
    }

    /// The result decoded as `Result`, or the daemon's error thrown as a ``RPCResponseError``.
    public func decodeResult<Result: RPCResult>(as type: Result.Type) throws(RPCResponseError) -> Result {
        switch self {
        case .notification(let method, _):
            throw .decoding(.notAMessage("expected a response, got the notification \(method)"))
        case .response(_, .failure(let error)):
            throw .server(error)
        case .response(_, .success(let json)):
            do { return try Result(json: json) } catch { throw .decoding(error) }
        }
    }
}

/// A response that did not yield a result: the daemon's error, or a result the client cannot read.
public enum RPCResponseError: Error, Hashable, Sendable {
    case server(RPCError)
    case decoding(ProtocolDecodingError)
}
