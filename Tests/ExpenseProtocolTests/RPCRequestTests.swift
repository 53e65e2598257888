import Testing
@testable import ExpenseProtocol

private func requestFailure(_ line: String) -> RPCRequestFailure? {
    if case .failure(let failure) = RPCRequest.parse(Array(line.utf8)) { return failure }
    return nil
}

@Suite struct RPCRequestTests {
    @Test func validRequests() throws {
        let request = try RPCRequest.parse(Array(#"{"jsonrpc":"2.0","id":7,"method":"ping","params":{}}"#.utf8)).get()
        #expect(request == RPCRequest(id: RequestID(7), method: "ping", params: [:]))
        let stringID = try RPCRequest.parse(Array(#"{"method":"pull","id":"a-1","jsonrpc":"2.0"}"#.utf8)).get()
        #expect(stringID.id == .string("a-1"))
        #expect(stringID.params == nil)
        let nullParams = try RPCRequest.parse(Array(#"{"jsonrpc":"2.0","id":1,"method":"ping","params":null,"extra":1}"#.utf8)).get()
        #expect(nullParams.params == nil)
        let notification = try RPCRequest.parse(Array(#"{"jsonrpc":"2.0","method":"ping"}"#.utf8)).get()
        #expect(notification.isNotification)
    }

    @Test func numberIDKeepsItsExactText() throws {
        let request = try RPCRequest.parse(Array(#"{"jsonrpc":"2.0","id":1.50e3,"method":"ping"}"#.utf8)).get()
        #expect(request.id == .number(JSONNumber(text: "1.50e3")))
        let line = String(decoding: RPCResponse.success(id: request.id, result: CursorResult(cursor: 3)), as: UTF8.self)
        #expect(line == #"{"jsonrpc":"2.0","id":1.50e3,"result":{"cursor":3}}"# + "\n")
    }

    @Test(arguments: [
        // (line, code, reason, echoed id text or nil)
        ("{", -32700, "parse_error", nil),
        ("nonsense", -32700, "parse_error", nil),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#, -32700, "parse_error", nil),
        (#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#, -32600, "duplicate_key", nil),
        ("[]", -32600, "batch_not_supported", nil),
        (#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, -32600, "batch_not_supported", nil),
        ("42", -32600, "invalid_request", nil),
        (#""ping""#, -32600, "invalid_request", nil),
        ("null", -32600, "invalid_request", nil),
        (#"{"id":5,"method":"ping"}"#, -32600, "invalid_request", "5"),
        (#"{"jsonrpc":"1.0","id":"x","method":"ping"}"#, -32600, "invalid_request", "\"x\""),
        (#"{"jsonrpc":2.0,"id":5,"method":"ping"}"#, -32600, "invalid_request", "5"),
        (#"{"jsonrpc":"2.0","id":5}"#, -32600, "invalid_request", "5"),
        (#"{"jsonrpc":"2.0","id":5,"method":7}"#, -32600, "invalid_request", "5"),
        (#"{"jsonrpc":"2.0","id":5,"method":"ping","params":3}"#, -32600, "invalid_request", "5"),
        (#"{"jsonrpc":"2.0","id":5,"method":"ping","params":"x"}"#, -32600, "invalid_request", "5"),
        (#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, -32600, "invalid_request", nil),
        (#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#, -32600, "invalid_request", nil),
        (#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#, -32600, "invalid_request", nil),
        (#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#, -32600, "invalid_request", nil),
    ] as [(String, Int, String, String?)])
    func envelopeErrors(line: String, code: Int, reason: String, id: String?) throws {
        let failure = try #require(requestFailure(line))
        #expect(failure.error.code == code)
        #expect(failure.error.reason == reason)
        #expect(failure.id?.description == id)
        // The answer is one line that a client reads back as the same error for the same id.
        let response = failure.responseLine
        #expect(response.last == 0x0A)
        #expect(response.dropLast().contains(0x0A) == false)
        guard case .response(let echoed, .failure(let error)) = try RPCClientCodec.parse(Array(response.dropLast())) else {
            Issue.record("not an error response"); return
        }
        #expect(echoed == failure.id)
        #expect(error == failure.error)
    }

    @Test func invalidUTF8IsAParseError() throws {
        let line: [UInt8] = Array(#"{"jsonrpc":"2.0","id":1,"method":"p"#.utf8) + [0xFF] + Array(#""}"#.utf8)
        let failure = try #require({ if case .failure(let f) = RPCRequest.parse(line) { return f }; return nil }())
        #expect(failure.error.code == -32700)
        #expect(failure.id == nil)
        #expect(failure.error.message.contains("invalid_utf8"))
    }

    @Test func exactErrorLine() {
        let line = RPCResponse.error(id: RequestID(3), .invalidParams("limit must be from 1 to 10000", field: "limit"))
        #expect(String(decoding: line, as: UTF8.self) ==
            #"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"data":{"field":"limit","reason":"invalid_params"},"message":"limit must be from 1 to 10000"}}"# + "\n")
        let busy = RPCResponse.error(id: nil, .busy)
        #expect(String(decoding: busy, as: UTF8.self) ==
            #"{"jsonrpc":"2.0","id":null,"error":{"code":-32004,"data":{"reason":"busy"},"message":"too many connections; try again later"}}"# + "\n")
    }

    /// The throttle's refusal: the −32001 a protocol-1 client already handles, plus `reason` and `retryAfter`.
    @Test func throttledErrorLineRoundTrips() throws {
        let line = RPCResponse.error(id: RequestID(1), .throttled(retryAfter: 42))
        let text = #"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"data":{"reason":"throttled","retryAfter":42},"message":"too many failed attempts from this address for this ledger; try again in 42 s"}}"#
        #expect(String(decoding: line, as: UTF8.self) == text + "\n")
        let error = try RPCError(json: try JSONParser.parse(Array(#"{"code":-32001,"data":{"reason":"throttled","retryAfter":42},"message":"m"}"#.utf8)))
        #expect(error.retryAfter == 42 && error.reason == RPCError.throttledReason)
        // Advice only: a malformed retryAfter is ignored, never a decoding error.
        for bad in [#""42""#, "-1", "4.5", "null"] {
            let json = #"{"code":-32001,"data":{"reason":"throttled","retryAfter":\#(bad)},"message":"m"}"#
            #expect(try RPCError(json: try JSONParser.parse(Array(json.utf8))).retryAfter == nil, "\(bad)")
        }
    }

    @Test func everyErrorConstructorHasItsCode() {
        let cases: [(RPCError, Int, String)] = [
            (.parseError("x"), -32700, "parse_error"), (.invalidRequest("x"), -32600, "invalid_request"),
            (.methodNotFound("frob"), -32601, "method_not_found"), (.invalidParams("x", field: "f"), -32602, "invalid_params"),
            (.batchTooLarge(count: 1001), -32602, "batch_too_large"), (.invalidMutation("x", field: "f"), -32602, "invalid_mutation"),
            (.invalidCursor("x"), -32602, "invalid_cursor"), (.internalError("x"), -32603, "internal_error"),
            (.unauthorized(), -32001, "unauthorized"), (.helloRequired, -32001, "unauthorized"),
            (.lineTooLong(limit: 1_048_576), -32002, "line_too_long"), (.unsupportedProtocol("2"), -32003, "unsupported_protocol"),
            (.busy, -32004, "busy"), (.cursorExpired(), -32005, "cursor_expired"), (.throttled(retryAfter: 5), -32001, "throttled"),
        ]
        for (error, code, reason) in cases {
            #expect(error.code == code)
            #expect(error.reason == reason)
        }
    }

    @Test func notificationLines() throws {
        let line = RPCResponse.changed(cursor: 42)
        #expect(String(decoding: line, as: UTF8.self) == #"{"jsonrpc":"2.0","method":"changed","params":{"cursor":42}}"# + "\n")
        guard case .notification(let method, let params) = try RPCClientCodec.parse(Array(line.dropLast())) else {
            Issue.record("not a notification"); return
        }
        #expect(method == "changed")
        #expect(try ChangedNotification(params: params).cursor == 42)
    }

    @Test func clientRequestLine() throws {
        let line = RPCClientCodec.request(id: RequestID(9), PullRequest(since: 4, limit: 10))
        #expect(String(decoding: line, as: UTF8.self) == #"{"jsonrpc":"2.0","id":9,"method":"pull","params":{"limit":10,"since":4}}"# + "\n")
        let request = try RPCRequest.parse(Array(line.dropLast())).get()
        #expect(try PullRequest(params: request.params) == PullRequest(since: 4, limit: 10))
    }

    @Test func clientResponseParsing() throws {
        #expect(throws: ProtocolDecodingError.self) { try RPCClientCodec.parse(Array("[]".utf8)) }
        #expect(throws: ProtocolDecodingError.self) { try RPCClientCodec.parse(Array(#"{"jsonrpc":"2.0","id":1}"#.utf8)) }
        let incoming = try RPCClientCodec.parse(Array(#"{"jsonrpc":"2.0","id":1,"result":{"cursor":5}}"#.utf8))
        #expect(try incoming.decodeResult(as: CursorResult.self) == CursorResult(cursor: 5))
        let failed = try RPCClientCodec.parse(Array(#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}"#.utf8))
        #expect(throws: RPCResponseError.server(RPCError(code: -32601, message: "no", reason: "unknown"))) {
            try failed.decodeResult(as: CursorResult.self)
        }
    }
}
