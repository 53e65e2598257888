import ExpenseCore
import ExpenseProtocol
import ExpenseTransport
import Foundation
import Synchronization

/// What every session of a server shares.
struct SessionContext: Sendable {
    let ledgers: any LedgerProvider
    let throttle: AuthThrottle
    let log: ServerLog
    let serverName: String
}

/// The protocol state machine of one connection: before `hello` every other method is −32001 and the
/// connection stays open; a bad token is −32001 then close; an unsupported protocol −32003 then close;
/// a second `hello` −32600; notifications (no `id`) are neither executed nor answered.
///
/// The state sits behind a `Mutex` because a request's task (on the cooperative pool) finishes `hello` and
/// `watch`; one request at a time is in flight, so the lock is never contended.
final class ClientSession: LineSession {
    private struct State {
        var ledger: (any LedgerService)?
        var clientId: UUID?
        /// The token `hello` proved (its name and role: the push path carries it to the ledger).
        var credential: TokenCredential?
        /// The kinds besides expenses served on this connection (Protocol.md §10).
        var kinds: Set<RecordKind> = []
        var watching = false
        var watchID: Int?
        var closed = false
    }

    private let connection: ConnectionHandle
    private let context: SessionContext
    private let maximumLineLength: Int
    private let state = Mutex(State())

    init(connection: ConnectionHandle, context: SessionContext, maximumLineLength: Int) {
        self.connection = connection
        self.context = context
        self.maximumLineLength = maximumLineLength
    }

    func received(line: ArraySlice<UInt8>) -> LineDisposition {
        let request: RPCRequest
        switch RPCRequest.parse(line) {
        case .failure(let failure): return .reply(failure.responseLine, .proceed)
        case .success(let parsed): request = parsed
        }
        guard let id = request.id else { return .reply([], .proceed) }  // a notification: ignored
        let (ledger, clientId, credential, kinds) = state.withLock { ($0.ledger, $0.clientId, $0.credential, $0.kinds) }
        guard let ledger, let clientId else {
            guard request.method == HelloParams.method else {
                return .reply(RPCResponse.error(id: id, .helloRequired), .proceed)
            }
            return hello(request, id: id)
        }
        switch request.method {
        case HelloParams.method:
            return .reply(RPCResponse.error(id: id, .invalidRequest("hello was already sent on this connection",
                                                                    reason: "already_authenticated")), .proceed)
        case WatchRequest.method:
            do {
                _ = try WatchRequest(params: request.params)
            } catch {
                return .reply(RPCResponse.error(id: id, error), .proceed)
            }
            watch(ledger: ledger, id: id)
            return .pending
        default:
            switch RequestDispatcher(ledger: ledger, clientId: clientId, log: context.log,
                                   maximumLineLength: maximumLineLength, logName: connection.logName,
                                   credential: credential, kinds: kinds).plan(request, id: id) {
            case .immediate(let bytes): return .reply(bytes, .proceed)
            case .deferred(let start):
                let connection = connection
                start { bytes in
                    // The ledger took in token changes before this request's work: a token revoked by then gets
                    // −32001 instead of the answer, and the connection closes.
                    if credential?.isRevoked == true {
                        connection.complete(RPCResponse.error(id: id, .unauthorized("the token was revoked")), after: .close)
                    } else {
                        connection.complete(bytes, after: .proceed)
                    }
                }
                return .pending
            }
        }
    }

    func lineTooLong() -> [UInt8] {
        RPCResponse.error(id: nil, .lineTooLong(limit: maximumLineLength))
    }

    func closed() {
        let (ledger, watchID, credential) = state.withLock { state in
            state.closed = true
            return (state.ledger, state.watchID, state.credential)
        }
        credential?.released()
        if let ledger, let watchID {
            ledger.unwatch(watchID) {}
        }
    }

    // MARK: Requests

    private func hello(_ request: RPCRequest, id: RequestID) -> LineDisposition {
        let params: HelloParams
        do {
            params = try HelloParams(params: request.params)
        } catch {
            if error.code == RPCError.unsupportedProtocolCode {
                context.log("\(connection.logName): unsupported protocol; closing")
                return .reply(RPCResponse.error(id: id, error), .close)
            }
            return .reply(RPCResponse.error(id: id, error), .proceed)
        }
        let peer = connection.peerHost
        switch context.throttle.admit(peer, ledger: params.ledger) {
        case .refuse(let retryAfter):
            let seconds = Self.wholeSeconds(retryAfter)
            context.log("\(connection.logName): hello refused for ledger \(DisplayText.quoted(params.ledger)), "
                        + "too many failed attempts; its turn is in \(seconds) s")
            return .reply(RPCResponse.error(id: id, .throttled(retryAfter: seconds)), .close)
        case .evaluate(let wait) where wait == .zero:
            authenticate(params, id: id)
            return .pending
        case .evaluate(let wait):
            // Its turn comes later: waited for on a Dispatch timer, not on the cooperative pool.
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.seconds(wait)) { self.authenticate(params, id: id) }
            return .pending
        }
    }

    /// `duration` in seconds, for a Dispatch deadline.
    private static func seconds(_ duration: Duration) -> Double {  // seconds of waiting, not money
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// `duration` rounded up to whole seconds (a client told to come back in N s finds its turn has come).
    private static func wholeSeconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds + (attoseconds > 0 ? 1 : 0)
    }

    /// Checks the ledger and token (on the ledger's thread) and greets; a failure is logged (never the token),
    /// counted, and answered −32001 before the connection closes.
    private func authenticate(_ params: HelloParams, id: RequestID) {
        context.ledgers.authenticate(ledger: params.ledger, token: params.token) { authentication in
            guard let authentication else {
                self.refuse(params, id: id)
                return
            }
            self.greet(authentication, params: params, id: id)
        }
    }

    private func refuse(_ params: HelloParams, id: RequestID) {
        context.throttle.recordFailure(connection.peerHost, ledger: params.ledger)
        context.log("\(connection.logName): hello failed for ledger \(DisplayText.quoted(params.ledger)) "
                    + "(unknown ledger or wrong token); closing")
        connection.complete(RPCResponse.error(id: id, .unauthorized()), after: .close)
    }

    /// Asks the ledger for the head and the client's last mutationId, then completes the `hello` on the
    /// connection: no `Task`, so the answer never waits for the cooperative pool.
    private func greet(_ authentication: Authentication, params: HelloParams, id: RequestID) {
        let connection = connection
        let ledger = authentication.ledger
        ledger.hello(clientId: params.clientId) { result in
            // Revoked between the check and now (the hello's own look at the tokens): as a wrong token.
            guard !authentication.credential.isRevoked else {
                authentication.credential.released()
                self.refuse(params, id: id)
                return
            }
            let (bytes, after) = self.greeting(result, ledger: ledger, credential: authentication.credential, params: params, id: id)
            connection.complete(bytes, after: after)
        }
    }

    /// The `hello` answer for `result`, binding the session on success.
    private func greeting(_ result: Result<(cursor: Int64, lastMutationId: Int64), any Error>, ledger: any LedgerService,
                          credential: TokenCredential, params: HelloParams, id: RequestID) -> ([UInt8], AfterReply) {
        do {
            let (cursor, lastMutationId) = try result.get()
            state.withLock { state in
                state.ledger = ledger
                state.clientId = params.clientId
                state.credential = credential
                state.kinds = Set(params.kinds)
            }
            let connection = connection
            let log = context.log
            // Revoked later (`expensed token revoke`): closed after what is already queued for it.
            credential.whenRevoked {
                log("\(connection.logName): token \(DisplayText.quoted(credential.name)) of ledger "
                    + "\(DisplayText.quoted(ledger.name)) was revoked; closing")
                connection.close()
            }
            context.log("\(connection.logName): hello: ledger \(DisplayText.quoted(ledger.name)), client "
                        + (params.clientName.map { DisplayText.quoted($0) } ?? "(unnamed)")
                        + " \(UUIDText.lowercased(params.clientId))")
            let result = HelloResult(protocolVersion: ProtocolVersion.current, server: context.serverName, ledger: ledger.name,
                                     currency: ledger.currency, cursor: cursor, lastMutationId: lastMutationId,
                                     maxLine: maximumLineLength, identity: ledger.identity, role: credential.role,
                                     tokenName: credential.name, kinds: params.kinds.isEmpty ? nil : params.kinds)
            return (RPCResponse.success(id: id, result: result), .establish)
        } catch {
            credential.released()
            return (RPCResponse.error(id: id, RequestDispatcher.rpcError(for: error, log: context.log)), .proceed)
        }
    }

    /// Registers the connection's watcher once (a second `watch` only answers the head) and answers with the
    /// head, all through the ledger's completion forms: nothing here waits for the cooperative pool.
    private func watch(ledger: any LedgerService, id: RequestID) {
        let connection = connection
        let first = state.withLock { state -> Bool in
            defer { state.watching = true }
            return !state.watching
        }
        guard first else {
            if let head = ledger.headSnapshot {
                connection.complete(RPCResponse.success(id: id, result: CursorResult(cursor: head)), after: .proceed)
            } else {
                Task { connection.complete(RPCResponse.success(id: id, result: CursorResult(cursor: await ledger.head())), after: .proceed) }
            }
            return
        }
        ledger.watch({ head in connection.send(RPCResponse.changed(cursor: head)) }) { watchID, head in
            let closed = self.state.withLock { state -> Bool in
                state.watchID = watchID
                return state.closed
            }
            if closed { ledger.unwatch(watchID) {} }
            connection.complete(RPCResponse.success(id: id, result: CursorResult(cursor: head)), after: .proceed)
        }
    }
}
