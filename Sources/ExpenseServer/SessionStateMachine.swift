import ExpenseCore
import ExpenseProtocol
import ExpenseTransport
import FoundationEssentials

/// What an established session is bound to: the ledger its `hello` opened, the client, the token it proved and
/// the kinds it is served (Protocol.md §4, §10).
struct SessionBinding: Sendable {
    let ledger: any LedgerService
    let clientId: UUID
    /// The token `hello` proved (its name and role: the push path carries it to the ledger).
    let credential: TokenCredential
    /// The kinds besides expenses served on this connection (Protocol.md §10).
    let kinds: Set<RecordKind>
}

extension SessionBinding: Equatable {
    /// The same client on the same ledger with the very same credential (transcript tests compare actions).
    static func == (lhs: SessionBinding, rhs: SessionBinding) -> Bool {
        lhs.ledger.name == rhs.ledger.name && lhs.clientId == rhs.clientId && lhs.credential === rhs.credential
            && lhs.kinds == rhs.kinds
    }
}

/// The protocol state of one connection (Protocol.md §4), as a value: each input returns the action the
/// session (``ClientSession``) must perform; the machine itself does no I/O (the shape of postgres-nio's
/// `ConnectionStateMachine`).
///
/// `awaitingHello` → (`hello` decoded) `authenticating` → (answered) `established(binding, watch)` → (token
/// revoked, or a `hello` refused) `closing` → (connection gone) `closed`. Before `hello` every other method is
/// −32001 and the connection stays open; a bad token is −32001 then close; an unsupported protocol −32003 then
/// close; a second `hello` −32600; notifications (no `id`) are neither executed nor answered. The transport's
/// timeouts (`--hello-timeout`, `--idle-timeout`) close the connection, which reaches the machine as
/// ``connectionClosed()``.
struct SessionStateMachine {
    /// The connection's watcher (Protocol.md §5.6).
    enum Watch: Equatable {
        case none
        /// Asked for; the ledger has not answered with its id yet.
        case starting
        case active(id: Int)
    }

    enum State: Equatable {
        case awaitingHello
        /// A `hello` is being checked (throttle, token, the ledger's head); no other line arrives meanwhile.
        case authenticating
        case established(SessionBinding, watch: Watch)
        /// The connection is to close (its token was revoked); requests still in flight are refused −32001.
        case closing(SessionBinding, watch: Watch)
        /// A refused `hello` is being answered before the close: nothing is bound.
        case refusing
        case closed
    }

    /// What the session does for an input.
    enum Action: Equatable {
        /// Nothing (a notification; an answer for a connection already gone).
        case none
        /// Send this line (already encoded), then act on `after`.
        case send([UInt8], AfterReply)
        /// Answer `id` with `error`, then act on `after`.
        case sendError(RequestID?, RPCError, AfterReply)
        /// Check the `hello`: throttle, ledger and token, then the ledger's head; answer through
        /// ``SessionStateMachine/greeted(_:response:)``, ``helloRefused(id:)``, ``helloThrottled(id:retryAfter:)``
        /// or ``helloFailed(id:error:)``.
        case authenticate(HelloRequest, RequestID)
        /// Send the `hello` answer (connection established), and close the connection once the token is revoked.
        case greet([UInt8], SessionBinding)
        /// Hand the request to the ledger through ``RequestDispatcher``; its answer comes back as
        /// ``SessionStateMachine/answered(id:)``.
        case dispatch(RPCRequest, RequestID, SessionBinding)
        /// Register the connection's watcher, then ``SessionStateMachine/watchStarted(id:watchID:head:)``.
        case startWatch(RequestID, SessionBinding)
        /// A repeated `watch`: answer the head only.
        case answerHead(RequestID, SessionBinding)
        /// Close the connection after what is queued for it (the token was revoked).
        case close
        /// A watcher registered for a connection that closed meanwhile: stop it (the session knows its ledger).
        case stopWatch(id: Int)
        /// The connection is gone: release the credential and stop the watcher, if any.
        case release(SessionBinding?, watchID: Int?)
    }

    private(set) var state: State

    init() { state = .awaitingHello }

    #if DEBUG
    /// A machine in any state (transcript tests).
    init(_ state: State) { self.state = state }
    #endif

    /// The ledger that answers a `ping` now, `nil` when ``lineReceived(_:)`` must decide it: on an established
    /// session a `ping` goes to the ledger whatever the watch, and changes nothing here.
    var pingLedger: (any LedgerService)? {
        guard case .established(let binding, _) = state else { return nil }
        return binding.ledger
    }

    /// A line was read and parsed (on the loop thread).
    mutating func lineReceived(_ parsed: Result<RPCRequest, RPCRequestFailure>) -> Action {
        let request: RPCRequest
        switch parsed {
        case .failure(let failure): return .send(failure.responseLine, .proceed)
        case .success(let parsed): request = parsed
        }
        guard let id = request.id else { return .none }  // a notification: ignored
        switch state {
        case .awaitingHello, .authenticating, .refusing:
            guard request.method == HelloRequest.method, state == .awaitingHello else {
                return .sendError(id, .helloRequired, .proceed)
            }
            let hello: HelloRequest
            do {
                hello = try HelloRequest(params: request.params)
            } catch {
                if error.code == RPCError.unsupportedProtocolCode {
                    state = .refusing
                    return .sendError(id, error, .close)
                }
                return .sendError(id, error, .proceed)
            }
            state = .authenticating
            return .authenticate(hello, id)
        case .established(let binding, let watch):
            switch MethodRoute.table[request.method] {
            case nil:
                return .sendError(id, .methodNotFound(request.method), .proceed)
            case .hello?:
                return .sendError(id, .invalidRequest("hello was already sent on this connection", reason: "already_authenticated"),
                                  .proceed)
            case .watch?:
                do {
                    _ = try WatchRequest(params: request.params)
                } catch {
                    return .sendError(id, error, .proceed)
                }
                guard watch == .none else { return .answerHead(id, binding) }
                state = .established(binding, watch: .starting)
                return .startWatch(id, binding)
            case .ledger?:
                return .dispatch(request, id, binding)
            }
        case .closing:
            return .sendError(id, .unauthorized("the token was revoked"), .close)
        case .closed:
            return .none
        }
    }

    /// The `hello`'s ledger and token were accepted and the ledger answered: `response` is the `hello` answer.
    mutating func greeted(_ binding: SessionBinding, response: [UInt8]) -> Action {
        switch state {
        case .authenticating:
            state = .established(binding, watch: .none)
            return .greet(response, binding)
        case .closed:
            // The connection went away while the hello was checked: nothing to answer, the credential to give back.
            return .release(binding, watchID: nil)
        case .awaitingHello, .established, .closing, .refusing:
            preconditionFailure("a hello answered in state \(state)")
        }
    }

    /// The `hello` named an unknown ledger or a wrong (or meanwhile revoked) token: −32001, then close.
    mutating func helloRefused(id: RequestID) -> Action {
        refuse(id, .unauthorized())
    }

    /// Too many failed `hello`s for this peer and ledger: −32001 `throttled`, then close.
    mutating func helloThrottled(id: RequestID, retryAfter seconds: Int64) -> Action {
        refuse(id, .throttled(retryAfter: seconds))
    }

    /// The ledger failed to answer the `hello` (a storage error): the error, and the connection may try again.
    mutating func helloFailed(id: RequestID, error: RPCError) -> Action {
        guard state == .authenticating else { return .none }
        state = .awaitingHello
        return .sendError(id, error, .proceed)
    }

    private mutating func refuse(_ id: RequestID, _ error: RPCError) -> Action {
        guard state == .authenticating else { return .none }
        state = .refusing
        return .sendError(id, error, .close)
    }

    /// What becomes of a ledger's answer to `id`: sent, then `after`; or another action instead. The answer's
    /// line is not part of it: the connection's loop thread makes the line once it is to be sent
    /// (``ConnectionHandle/complete(after:_:)``), so the machine decides without it.
    enum Answering: Equatable {
        case send(AfterReply)
        case instead(Action)
    }

    /// The ledger answered a dispatched request.
    mutating func answered(id: RequestID) -> Answering {
        switch state {
        case .established: return .send(.proceed)
        // The ledger took in token changes before this request's work: a token revoked by then gets −32001
        // instead of the answer, and the connection closes.
        case .closing: return .instead(.sendError(id, .unauthorized("the token was revoked"), .close))
        case .closed: return .instead(.none)
        case .awaitingHello, .authenticating, .refusing: preconditionFailure("a ledger answer in state \(state)")
        }
    }

    /// The session's token was revoked (`expensed token revoke`): the connection closes after what is queued.
    mutating func tokenRevoked() -> Action {
        guard case .established(let binding, let watch) = state else { return .none }
        state = .closing(binding, watch: watch)
        return .close
    }

    /// The ledger registered the watcher asked for by ``Action/startWatch(_:_:)`` and told its head.
    mutating func watchStarted(id: RequestID, watchID: Int, head: Int64) -> Action {
        switch state {
        case .established(let binding, .starting):
            state = .established(binding, watch: .active(id: watchID))
            return .send(RPCResponse.success(id: id, result: CursorResult(cursor: head)), .proceed)
        case .closing(let binding, .starting):
            state = .closing(binding, watch: .active(id: watchID))
            return .send(RPCResponse.success(id: id, result: CursorResult(cursor: head)), .proceed)
        case .closed:
            return .stopWatch(id: watchID)
        default:
            preconditionFailure("a watcher started in state \(state)")
        }
    }

    /// The connection is closed (by the peer, a timeout, a close the session asked for, or shutdown).
    mutating func connectionClosed() -> Action {
        defer { state = .closed }
        switch state {
        case .established(let binding, let watch), .closing(let binding, let watch):
            if case .active(let watchID) = watch { return .release(binding, watchID: watchID) }
            return .release(binding, watchID: nil)
        case .awaitingHello, .authenticating, .refusing, .closed:
            return .none
        }
    }
}
