import ExpenseCore
/// A JSON-RPC error as sent on the wire: `{"code":…,"message":…,"data":{"reason":…,"field":…,"retryAfter":…}}`.
///
/// `code` is the JSON-RPC code, `reason` the stable snake_case code scripts match on, `field` the parameter
/// concerned (when one is), `retryAfter` the seconds to wait before trying again (when the daemon knows),
/// `message` a sentence for a person (never matched on; it may change).
public struct RPCError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: Int
    public var message: String
    public var reason: String
    public var field: String?
    /// Whole seconds after which the same request may succeed (`throttled`); `nil` when not said.
    public var retryAfter: Int64?

    public init(code: Int, message: String, reason: String, field: String? = nil, retryAfter: Int64? = nil) {
        self.code = code
        self.message = message
        self.reason = reason
        self.field = field
        self.retryAfter = retryAfter
    }

    public var description: String {
        "\(code) \(reason)" + (field.map { " (\($0))" } ?? "") + ": \(message)"
    }

    // MARK: Codes

    /// −32700: the line is not JSON or not UTF-8. Answered with `id: null`; the connection stays open.
    public static let parseErrorCode = -32700
    /// −32600: valid JSON but not a valid request (not an object, a batch, no `"jsonrpc":"2.0"`, …).
    public static let invalidRequestCode = -32600
    /// −32601: no method of that name.
    public static let methodNotFoundCode = -32601
    /// −32602: the params of a known method are wrong.
    public static let invalidParamsCode = -32602
    /// −32603: the daemon failed (storage error); nothing of the request was acknowledged.
    public static let internalErrorCode = -32603
    /// −32001: no successful `hello` yet, or a wrong ledger or token.
    public static let unauthorizedCode = -32001
    /// −32002: a line longer than the limit; the connection is closed after the answer.
    public static let lineTooLongCode = -32002
    /// −32003: the `hello` asked for a protocol version this daemon does not speak; then closed.
    public static let unsupportedProtocolCode = -32003
    /// −32004: the daemon is at its connection limit; sent unsolicited, then closed.
    public static let busyCode = -32004
    /// −32005: the pull cursor is older than the oldest change the daemon still keeps.
    public static let cursorExpiredCode = -32005
    /// −32007: the daemon's storage (PostgreSQL) is unreachable; nothing of the request was stored. Retry later.
    public static let storageUnavailableCode = -32007
    /// −32006: the token's role does not allow the request (a viewer's `push`); nothing of it was done.
    public static let forbiddenCode = -32006

    // MARK: Constructors, one per code (and per reason where a code has several)

    /// −32700 `parse_error`; `detail` is the parser's code, such as `invalid_utf8`.
    public static func parseError(_ detail: String) -> RPCError {
        RPCError(code: parseErrorCode, message: "Parse error: \(detail)", reason: "parse_error")
    }

    /// −32700 `parse_error` for a parser failure.
    public static func parseError(_ error: JSONParseError) -> RPCError {
        parseError(error.description)
    }

    /// −32600 with `reason` (`invalid_request` unless more precise, such as `duplicate_key`).
    public static func invalidRequest(_ message: String, reason: String = "invalid_request", field: String? = nil) -> RPCError {
        RPCError(code: invalidRequestCode, message: "Invalid request: \(message)", reason: reason, field: field)
    }

    /// −32601 `method_not_found`.
    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(code: methodNotFoundCode, message: "Method not found: \(DisplayText.escaped(method))", reason: "method_not_found")
    }

    /// −32602 `invalid_params` naming the parameter.
    public static func invalidParams(_ message: String, field: String?, reason: String = "invalid_params") -> RPCError {
        RPCError(code: invalidParamsCode, message: message, reason: reason, field: field)
    }

    /// −32602 `batch_too_large`: more than ``PushRequest/maximumMutations`` mutations; nothing applied.
    public static func batchTooLarge(count: Int) -> RPCError {
        RPCError(code: invalidParamsCode,
                 message: "a push holds at most \(PushRequest.maximumMutations) mutations; this one holds \(count)",
                 reason: "batch_too_large", field: "mutations")
    }

    /// −32602 `invalid_mutation`: a mutation without a usable `mutationId`; nothing of the push applied.
    public static func invalidMutation(_ message: String, field: String) -> RPCError {
        RPCError(code: invalidParamsCode, message: message, reason: "invalid_mutation", field: field)
    }

    /// −32602 `invalid_cursor`: a `since` below 0 or beyond the ledger's head.
    public static func invalidCursor(_ message: String) -> RPCError {
        RPCError(code: invalidParamsCode, message: message, reason: "invalid_cursor", field: "since")
    }

    /// −32603 `internal_error`. The message must not leak secrets; it is shown to the client.
    public static func internalError(_ message: String) -> RPCError {
        RPCError(code: internalErrorCode, message: "Internal error: \(message)", reason: "internal_error")
    }

    /// −32001 `unauthorized`.
    public static func unauthorized(_ message: String = "unknown ledger or wrong token") -> RPCError {
        RPCError(code: unauthorizedCode, message: message, reason: "unauthorized")
    }

    /// −32001 `throttled`: a `hello` refused without looking at its token, because too many attempts from this
    /// address for this ledger failed (Protocol.md section 4); `retryAfter` says when its turn comes.
    public static func throttled(retryAfter seconds: Int64) -> RPCError {
        RPCError(code: unauthorizedCode,
                 message: "too many failed attempts from this address for this ledger; try again in \(seconds) s",
                 reason: throttledReason, retryAfter: seconds)
    }

    /// The `reason` of a −32001 that is the login throttle's refusal, not a wrong ledger or token.
    public static let throttledReason = "throttled"

    /// The `reason` of a −32603 for a write refused because the daemon's disk is full: nothing was stored, and
    /// the same request succeeds once there is space (Protocol.md section 9).
    public static let storageFullReason = "storage_full"

    /// The `reason` of the line a TLS port sends, in plaintext, to a plaintext client before closing: connect
    /// with `tls://`.
    public static let tlsPortReason = "tls_port"

    /// −32001 `unauthorized` for a request before `hello`.
    public static let helloRequired = RPCError(code: unauthorizedCode, message: "hello must be the first request on a connection",
                                               reason: "unauthorized")

    /// −32002 `line_too_long`.
    public static func lineTooLong(limit: Int) -> RPCError {
        RPCError(code: lineTooLongCode, message: "a line is at most \(limit) bytes; closing the connection", reason: "line_too_long")
    }

    /// −32003 `unsupported_protocol`.
    public static func unsupportedProtocol(_ requested: String) -> RPCError {
        RPCError(code: unsupportedProtocolCode,
                 message: "protocol \(requested) is not supported; this daemon speaks protocol \(ProtocolVersion.current)",
                 reason: "unsupported_protocol", field: "protocol")
    }

    /// −32004 `busy`.
    public static let busy = RPCError(code: busyCode, message: "too many connections; try again later", reason: "busy")

    /// −32005 `cursor_expired`.
    public static func cursorExpired(_ message: String = "the cursor is older than the oldest change kept; pull again from 0") -> RPCError {
        RPCError(code: cursorExpiredCode, message: message, reason: "cursor_expired", field: "since")
    }

    /// −32006 `forbidden`: the token's `role` may not do this (Protocol.md §4, "Roles"); nothing of the request
    /// was done (a refused push consumes no mutationId). `field` names what was refused (`mutations`).
    public static func forbidden(_ message: String, field: String? = nil) -> RPCError {
        RPCError(code: forbiddenCode, message: message, reason: forbiddenReason, field: field)
    }

    /// The `reason` of −32006.
    public static let forbiddenReason = "forbidden"
}

extension RPCError {
    /// Writes the error object `{"code":…,"data":{"field":…,"reason":…,"retryAfter":…},"message":…}` (keys
    /// sorted; `field` and `retryAfter` only when there is one).
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("code", Int64(code))
        writer.key("data")
        writer.beginObject()
        if let field { writer.member("field", field) }
        writer.member("reason", reason)
        if let retryAfter { writer.member("retryAfter", retryAfter) }
        writer.endObject()
        writer.member("message", message)
        writer.endObject()
    }

    /// Reads an error object. A missing `data.reason` (an off-the-shelf JSON-RPC peer) reads as `unknown`.
    public init(json: JSONValue) throws(ProtocolDecodingError) {
        let reader = try ResultReader(json, path: "error")
        code = Int(try reader.int64("code"))
        message = try reader.string("message")
        if let data = reader.members["data"], case .object = data {
            let dataReader = try ResultReader(data, path: "error.data")
            reason = try dataReader.optionalString("reason") ?? "unknown"
            field = try dataReader.optionalString("field")
            // Advice only: a value that is not a whole number of seconds, 0 or more, is ignored.
            retryAfter = dataReader.members["retryAfter"]?.int64Value.flatMap { $0 >= 0 ? $0 : nil }
        } else {
            reason = "unknown"
            field = nil
            retryAfter = nil
        }
    }
}
