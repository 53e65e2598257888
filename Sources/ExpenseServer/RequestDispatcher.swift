import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// Turns one request of an established session into its answer, through the ledger method of
/// ``MethodRoute/table``: params are checked at once (a bad one is answered on the loop thread, as is `ping`
/// from the ledger's head); the ledger's work is started with a function that receives the response when it is
/// ready.
struct RequestDispatcher: Sendable {
    /// Receives, on whichever thread finished the work, a function that makes the response line; the
    /// connection's loop thread calls it (``ConnectionHandle/complete(after:_:)``), so a ledger's thread hands
    /// over its result and need not encode it (a push's answer, a line per mutation: the ledger's thread bounds
    /// the push figures). A line made already is handed over as `reply { line }`.
    typealias Reply = @Sendable (@escaping @Sendable () -> [UInt8]) -> Void
    /// How the ledger answers one method: decodes the params and plans the work.
    typealias Handler = @Sendable (RequestDispatcher, RPCRequest, RequestID) throws(RPCError) -> Plan

    /// How a request is answered.
    enum Plan {
        /// The full response line, ready now.
        case immediate([UInt8])
        /// Work to start; it calls `reply` exactly once, with what makes the response line.
        case deferred(@Sendable (_ reply: @escaping Reply) -> Void)
    }

    let ledger: any LedgerService
    let clientId: UUID
    let log: ServerLog
    /// The daemon's line limit (`--max-line`): pull pages are cut to it (Protocol.md §5.3).
    let maximumLineLength: Int
    /// The connection's name in log lines (`connection 7.1 from 127.0.0.1`).
    var logName = "connection"
    /// The session's token (name and role): a viewer's push is −32006 `forbidden`; the ledger gets it with each
    /// push, so its changes know their author (`credential.name`). `nil`: no role check (tests of the front).
    var credential: TokenCredential?
    /// The kinds besides expenses this connection's `hello` asked for and is served (Protocol.md §10).
    var kinds: Set<RecordKind> = []

    /// The plan for `request`: its method's handler from ``MethodRoute/table``; a name the table does not give
    /// to the ledger is −32601 (the session answers `hello` and `watch` itself).
    func plan(_ request: RPCRequest, id: RequestID) -> Plan {
        guard case .ledger(let handler)? = MethodRoute.table[request.method] else {
            return .immediate(RPCResponse.error(id: id, .methodNotFound(request.method)))
        }
        do {
            return try handler(self, request, id)
        } catch {
            return .immediate(RPCResponse.error(id: id, error))
        }
    }

    // MARK: The ledger's methods

    func ping(_ request: RPCRequest, id: RequestID) throws(RPCError) -> Plan {
        _ = try PingRequest(params: request.params)
        return .immediate(RPCResponse.success(id: id, result: CursorResult(cursor: ledger.head)))
    }

    func push(_ request: RPCRequest, id: RequestID) throws(RPCError) -> Plan {
        let push = try request.pushRequest()
        if let credential, !credential.role.mayWrite {
            return .immediate(RPCResponse.error(id: id, .forbidden(
                "the token \(DisplayText.quoted(credential.name)) is a \(credential.role.rawValue)'s: it may read this ledger, "
                    + "not change it; nothing of this push was applied", field: "mutations")))
        }
        let ledger = ledger, clientId = clientId, log = log, credential = credential, logName = logName
        return .deferred { reply in
            ledger.push(clientId: clientId, items: push.items, credential: credential) { result in
                switch result {
                case .success(let pushed):
                    log(.debug, "\(logName): push to ledger \(DisplayText.quoted(ledger.name)) by \(UUIDText.lowercased(clientId)): "
                        + Self.counts(pushed))
                    reply { RPCResponse.success(id: id, result: pushed) }
                case .failure:
                    // An error is logged here, with the group's other lines (ServerLog.coalescingWrites).
                    let line = Self.encode(result, id: id, log: log)
                    reply { line }
                }
            }
        }
    }

    func pull(_ request: RPCRequest, id: RequestID) throws(RPCError) -> Plan {
        var pull = try PullRequest(params: request.params)
        pull.kinds = kinds
        pull.maximumLineLength = maximumLineLength
        let ledger = ledger, log = log, maximumLineLength = maximumLineLength, params = pull
        return .deferred { reply in
            ledger.pull(params) { result in
                switch result {
                case .success(let page):
                    let line = page.responseLine(id: id, maximumLineLength: maximumLineLength)
                    reply { line }
                case .failure(let error):
                    let line = RPCResponse.error(id: id, Self.rpcError(for: error, log: log))
                    reply { line }
                }
            }
        }
    }

    func summary(_ request: RPCRequest, id: RequestID) throws(RPCError) -> Plan {
        let summary = try SummaryRequest(params: request.params)
        let ledger = ledger, log = log
        return .deferred { reply in
            ledger.summary(summary) { result in
                let line = Self.encode(result, id: id, log: log)
                reply { line }
            }
        }
    }

    /// Read-only: allowed to every session that may read the ledger.
    func history(_ request: RPCRequest, id: RequestID) throws(RPCError) -> Plan {
        let history = try HistoryRequest(params: request.params)
        let ledger = ledger, log = log, maximumLineLength = maximumLineLength
        return .deferred { reply in
            ledger.history(history) { result in
                switch result {
                case .success(let page):
                    let line = page.responseLine(id: id, maximumLineLength: maximumLineLength)
                    reply { line }
                case .failure:
                    let line = Self.encode(result, id: id, log: log)
                    reply { line }
                }
            }
        }
    }

    // MARK: Encoding

    /// `3 applied, 0 duplicate, 1 conflict, 0 rejected`: what a push's answers were, for the log.
    static func counts(_ result: PushResult) -> String {
        var applied = 0, duplicate = 0, conflict = 0, rejected = 0
        for item in result.results {
            switch item.status {
            case .applied: applied += 1
            case .duplicate: duplicate += 1
            case .conflict, .dataConflict: conflict += 1
            case .rejected: rejected += 1
            }
        }
        return "\(applied) applied, \(duplicate) duplicate, \(conflict) conflict, \(rejected) rejected"
    }

    /// The response line for a ledger call's result, or for the error it failed with.
    static func encode<Value: RPCResult>(_ result: Result<Value, any Error>, id: RequestID, log: ServerLog) -> [UInt8] {
        switch result {
        case .success(let value): RPCResponse.success(id: id, result: value)
        case .failure(let error): RPCResponse.error(id: id, rpcError(for: error, log: log))
        }
    }

    /// The protocol's form of any error; unknown errors become −32603 and are logged (never sent in detail).
    static func rpcError(for error: any Error, log: ServerLog) -> RPCError {
        if let error = error as? RPCError { return error }
        if let error = error as? any RPCErrorConvertible {
            let rpcError = error.rpcError
            // The daemon's own trouble (a full disk, a failed write or fsync) must reach the operator too.
            if rpcError.code == RPCError.internalErrorCode { log(.error, "request failed: \(error)") }
            return rpcError
        }
        log(.error, "internal error: \(error)")
        return .internalError("internal error; see the daemon's log")
    }
}
