import Dispatch
import ExpenseCore
import ExpenseProtocol
import ExpenseTransport
import FoundationEssentials
import Synchronization

/// What every session of a server shares: one object, so each connection holds a reference to it, not its
/// own ~120-byte copy.
final class SessionContext: Sendable {
    let ledgers: any LedgerProvider
    /// This daemon's throttle: the first, local gate.
    let throttle: AuthThrottle
    /// The count every daemon of the database shares (PostgreSQL), consulted after the local gate; `nil`: none.
    let sharedThrottle: (any SharedLoginThrottle)?
    let log: ServerLog
    let serverName: String

    init(ledgers: any LedgerProvider, throttle: AuthThrottle, sharedThrottle: (any SharedLoginThrottle)?,
         log: ServerLog, serverName: String) {
        self.ledgers = ledgers
        self.throttle = throttle
        self.sharedThrottle = sharedThrottle
        self.log = log
        self.serverName = serverName
    }
}

/// One connection's protocol: feeds what happens to it into its ``SessionStateMachine`` and performs the
/// actions the machine returns (the machine decides; this class does the I/O, the ledger calls and the logs).
///
/// The machine sits behind a `Mutex` because the ledger's thread and Dispatch timers finish requests; one
/// request at a time is in flight, so the lock is barely contended.
final class ClientSession: LineSession {
    private let connection: ConnectionHandle
    private let context: SessionContext
    private let maximumLineLength: Int
    private let machine = Mutex(SessionStateMachine())
    /// `connection.logName`, made once: building it per request cost a ping about a fifth of its instructions.
    private let logName: String

    init(connection: ConnectionHandle, context: SessionContext, maximumLineLength: Int) {
        self.connection = connection
        self.logName = connection.logName
        self.context = context
        self.maximumLineLength = maximumLineLength
    }

    /// Answers one line; called by the loop (``LineSession``'s contract), so nothing here may block.
    ///
    /// A `ping` in one of ``PingLine``'s forms on an established session is answered here, straight into the
    /// connection's output from the ledger's head: the bytes the general path (``answer(_:)``, the machine,
    /// ``RequestDispatcher/ping(_:id:)``) writes, without a request, a `String` or an array made for it, which
    /// took pipelined pings from 0.48× to 0.95× of Redis's rate (`PingFastPathTests` compares the two). Every
    /// other line goes the general way.
    func received(line: ArraySlice<UInt8>, appendingTo output: inout [UInt8]) -> LineDisposition {
        LoopThread.assertCurrent()
        let answered = line.withUnsafeBufferPointer { bytes in
            guard let idRange = PingLine.idRange(in: bytes), let ledger = machine.withLock({ $0.pingLedger }) else {
                return false
            }
            PingLine.appendAnswer(id: UnsafeBufferPointer(rebasing: bytes[idRange]), cursor: ledger.head, to: &output)
            return true
        }
        return answered ? .reply([], .proceed) : answer(line)
    }

    /// The general path of ``received(line:appendingTo:)``: the line parsed (a plain push decoded straight from
    /// its bytes, `PushLineReader.swift`), the machine's decision performed.
    private func answer(_ line: ArraySlice<UInt8>) -> LineDisposition {
        let action = machine.withLock { $0.lineReceived(RPCRequest.parseDecodingPush(line)) }
        switch action {
        case .none: return .reply([], .proceed)
        case .send(let bytes, let after): return .reply(bytes, after)
        case .sendError(let id, let error, let after):
            if error.code == RPCError.unsupportedProtocolCode { context.log(.warning, "\(logName): unsupported protocol; closing") }
            return .reply(RPCResponse.error(id: id, error), after)
        case .authenticate(let hello, let id): return admit(hello, id: id)
        case .dispatch(let request, let id, let binding): return dispatch(request, id: id, binding: binding)
        case .startWatch(let id, let binding):
            startWatch(id: id, binding: binding)
            return .pending
        case .answerHead(let id, let binding):
            return .reply(RPCResponse.success(id: id, result: CursorResult(cursor: binding.ledger.head)), .proceed)
        case .greet, .close, .stopWatch, .release:
            preconditionFailure("\(action) does not answer a line")
        }
    }

    func lineTooLong() -> [UInt8] {
        LoopThread.assertCurrent()
        return RPCResponse.error(id: nil, .lineTooLong(limit: maximumLineLength))
    }

    func closed() {
        LoopThread.assertCurrent()
        perform(machine.withLock { $0.connectionClosed() })
    }

    /// Performs an action returned for an input that came off the loop thread (a ledger's answer, a timer, a
    /// revocation): what is sent goes through the connection's mailbox.
    private func perform(_ action: SessionStateMachine.Action, ledger: (any LedgerService)? = nil) {
        switch action {
        case .none: break
        case .send(let bytes, let after): connection.complete(after: after) { bytes }
        case .sendError(let id, let error, let after): connection.complete(after: after) { RPCResponse.error(id: id, error) }
        case .greet(let bytes, let binding): greet(bytes, binding: binding)
        case .close: connection.close()
        case .stopWatch(let watchID): ledger?.unwatch(watchID) {}
        case .release(let binding, let watchID):
            binding?.credential.released()
            if let binding, let watchID { binding.ledger.unwatch(watchID) {} }
        case .authenticate, .dispatch, .startWatch, .answerHead:
            preconditionFailure("\(action) answers a line, not an event")
        }
    }

    // MARK: hello

    /// The local throttle's verdict for the peer and ledger, then the shared one's (when the ledgers are in
    /// PostgreSQL), then the token check (at once or after the waits).
    private func admit(_ hello: HelloRequest, id: RequestID) -> LineDisposition {
        switch context.throttle.admit(connection.peerHost, ledger: hello.ledger) {
        case .refuse(let retryAfter):
            switch throttled(hello, id: id, retryAfter: retryAfter) {
            case .sendError(let id, let error, let after): return .reply(RPCResponse.error(id: id, error), after)
            case let action: preconditionFailure("\(action) refuses no hello")
            }
        case .evaluate(let wait):
            after(wait) { self.admitShared(hello, id: id) }
            return .pending
        }
    }

    /// The shared count's verdict (off the loop's thread), then the token check at the attempt's turn.
    private func admitShared(_ hello: HelloRequest, id: RequestID) {
        guard let shared = context.sharedThrottle else {
            authenticate(hello, id: id)
            return
        }
        shared.admit(connection.peerHost, ledger: hello.ledger) { decision in
            switch decision {
            case .refuse(let retryAfter): self.perform(self.throttled(hello, id: id, retryAfter: retryAfter))
            case .evaluate(let wait): self.after(wait) { self.authenticate(hello, id: id) }
            }
        }
    }

    /// Runs `work` now, or after `wait` on a Dispatch timer (not on the cooperative pool).
    private func after(_ wait: Duration, _ work: @escaping @Sendable () -> Void) {
        guard wait > .zero else {
            work()
            return
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.seconds(wait), execute: work)
    }

    /// Logs a `hello` refused by a throttle and has the machine refuse it.
    private func throttled(_ hello: HelloRequest, id: RequestID, retryAfter: Duration) -> SessionStateMachine.Action {
        let seconds = Self.wholeSeconds(retryAfter)
        context.log(.warning, "\(logName): hello refused for ledger \(DisplayText.quoted(hello.ledger)), "
                    + "too many failed attempts; its turn is in \(seconds) s")
        return machine.withLock { $0.helloThrottled(id: id, retryAfter: seconds) }
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

    /// Checks the ledger and token (on the ledger's thread), then asks the ledger for the head and the client's
    /// last mutationId: no `Task`, so the answer never waits for the cooperative pool.
    private func authenticate(_ hello: HelloRequest, id: RequestID) {
        context.ledgers.authenticate(ledger: hello.ledger, token: hello.token) { checked in
            let authentication: Authentication
            switch checked {
            case .success(let admitted?): authentication = admitted
            case .success(nil):
                self.refuse(hello, id: id)
                return
            case .failure(let error):  // the tokens could not be read (storage_unavailable): not a wrong token
                let rpcError = RequestDispatcher.rpcError(for: error, log: self.context.log)
                self.perform(self.machine.withLock { $0.helloFailed(id: id, error: rpcError) })
                return
            }
            let ledger = authentication.ledger, credential = authentication.credential
            ledger.hello(clientId: hello.clientId) { result in
                // Revoked between the check and now (the hello's own look at the tokens): as a wrong token.
                guard !credential.isRevoked else {
                    credential.released()
                    self.refuse(hello, id: id)
                    return
                }
                switch result {
                case .success(let (cursor, lastMutationId)):
                    let binding = SessionBinding(ledger: ledger, clientId: hello.clientId, credential: credential,
                                                 kinds: Set(hello.kinds))
                    let response = HelloResult(protocolVersion: ProtocolVersion.current, server: self.context.serverName,
                                               ledger: ledger.name, currency: ledger.currency, cursor: cursor,
                                               lastMutationId: lastMutationId, maxLine: self.maximumLineLength,
                                               identity: ledger.identity, role: credential.role, tokenName: credential.name,
                                               kinds: hello.kinds.isEmpty ? nil : hello.kinds)
                    self.context.log("\(self.logName): hello: ledger \(DisplayText.quoted(ledger.name)), client "
                                     + (hello.clientName.map { DisplayText.quoted($0) } ?? "(unnamed)")
                                     + " \(UUIDText.lowercased(hello.clientId))")
                    self.perform(self.machine.withLock { $0.greeted(binding, response: RPCResponse.success(id: id, result: response)) })
                case .failure(let error):
                    credential.released()
                    let rpcError = RequestDispatcher.rpcError(for: error, log: self.context.log)
                    self.perform(self.machine.withLock { $0.helloFailed(id: id, error: rpcError) })
                }
            }
        }
    }

    /// A failure is logged (never the token), counted (in the shared count too, before the answer, so a client
    /// that got its −32001 finds it counted on every daemon), and answered −32001 before the connection closes.
    private func refuse(_ hello: HelloRequest, id: RequestID) {
        context.throttle.recordFailure(connection.peerHost, ledger: hello.ledger)
        context.log(.warning, "\(logName): hello failed for ledger \(DisplayText.quoted(hello.ledger)) "
                    + "(unknown ledger or wrong token); closing")
        guard let shared = context.sharedThrottle else {
            perform(machine.withLock { $0.helloRefused(id: id) })
            return
        }
        shared.recordFailure(connection.peerHost, ledger: hello.ledger) {
            self.perform(self.machine.withLock { $0.helloRefused(id: id) })
        }
    }

    /// Sends the `hello` answer; from then on a revocation of the token (`expensed token revoke`) closes the
    /// connection after what is already queued for it.
    private func greet(_ response: [UInt8], binding: SessionBinding) {
        let logName = logName, log = context.log, credential = binding.credential, ledgerName = binding.ledger.name
        credential.whenRevoked {
            log("\(logName): token \(DisplayText.quoted(credential.name)) of ledger "
                + "\(DisplayText.quoted(ledgerName)) was revoked; closing")
            self.perform(self.machine.withLock { $0.tokenRevoked() })
        }
        connection.complete(after: .establish) { response }
    }

    // MARK: Requests

    private func dispatch(_ request: RPCRequest, id: RequestID, binding: SessionBinding) -> LineDisposition {
        let dispatcher = RequestDispatcher(ledger: binding.ledger, clientId: binding.clientId, log: context.log,
                                           maximumLineLength: maximumLineLength, logName: logName,
                                           credential: binding.credential, kinds: binding.kinds)
        switch dispatcher.plan(request, id: id) {
        case .immediate(let bytes): return .reply(bytes, .proceed)
        case .deferred(let start):
            start { answer in
                switch self.machine.withLock({ $0.answered(id: id) }) {
                case .send(let after): self.connection.complete(after: after, answer)
                case .instead(let action): self.perform(action)
                }
            }
            return .pending
        }
    }

    /// Registers the connection's watcher through the ledger's completion form (nothing here waits for the
    /// cooperative pool) and answers with the head.
    private func startWatch(id: RequestID, binding: SessionBinding) {
        let connection = connection, ledger = binding.ledger
        ledger.watch({ head in connection.send(RPCResponse.changed(cursor: head)) }) { watchID, head in
            self.perform(self.machine.withLock { $0.watchStarted(id: id, watchID: watchID, head: head) }, ledger: ledger)
        }
    }
}
