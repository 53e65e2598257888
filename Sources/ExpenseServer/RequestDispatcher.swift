import ExpenseCore
import ExpenseProtocol
import Foundation

/// Turns one authenticated request into its answer: params are checked at once (a bad one is answered
/// on the loop thread), the ledger call runs later as a job.
struct RequestDispatcher: Sendable {
    /// How a request is answered.
    enum Plan {
        /// The full response line, ready now.
        case immediate([UInt8])
        /// Work that produces the response line.
        case job(@Sendable () async -> [UInt8])
    }

    let ledger: any LedgerService
    let clientId: UUID
    let log: ServerLog

    func plan(_ request: RPCRequest, id: RequestID) -> Plan {
        let ledger = ledger
        let clientId = clientId
        let log = log
        do {
            switch request.method {
            case PingRequest.method:
                _ = try PingRequest(params: request.params)
                if let head = ledger.headSnapshot {
                    return .immediate(RPCResponse.success(id: id, result: CursorResult(cursor: head)))
                }
                return .job { RPCResponse.success(id: id, result: CursorResult(cursor: await ledger.head())) }
            case PushRequest.method:
                let push = try PushRequest(params: request.params)
                return .job {
                    await Self.answer(id: id, log: log) { try await ledger.push(clientId: clientId, items: push.items) }
                }
            case PullParams.method:
                let pull = try PullParams(params: request.params)
                return .job { await Self.answer(id: id, log: log) { try await ledger.pull(pull) } }
            case SummaryRequest.method:
                let summary = try SummaryRequest(params: request.params)
                return .job { await Self.answer(id: id, log: log) { try await ledger.summary(summary.query) } }
            default:
                return .immediate(RPCResponse.error(id: id, .methodNotFound(request.method)))
            }
        } catch {
            return .immediate(RPCResponse.error(id: id, error))
        }
    }

    /// Runs `body` and encodes its result, or the error it threw.
    static func answer<Result: RPCResult>(id: RequestID, log: ServerLog,
                                          _ body: () async throws -> Result) async -> [UInt8] {
        do {
            return RPCResponse.success(id: id, result: try await body())
        } catch {
            return RPCResponse.error(id: id, rpcError(for: error, log: log))
        }
    }

    /// The protocol's form of any error; unknown errors become −32603 and are logged (never sent in detail).
    static func rpcError(for error: any Error, log: ServerLog) -> RPCError {
        if let error = error as? RPCError { return error }
        if let error = error as? any RPCErrorConvertible {
            let rpcError = error.rpcError
            // The daemon's own trouble (a full disk, a failed write or fsync) must reach the operator too.
            if rpcError.code == RPCError.internalErrorCode { log("request failed: \(error)") }
            return rpcError
        }
        log("internal error: \(error)")
        return .internalError("internal error; see the daemon's log")
    }
}
