import ExpenseCore
import ExpenseProtocol
import ExpenseTransport
import Foundation

/// One authenticated connection to the daemon: blocking request/response calls over a ``LineConnection``,
/// with `changed` notifications set aside as they arrive.
///
/// - Important: blocking: use it from the main thread or a thread of its own, never on the cooperative pool.
package final class SyncConnection {
    private let connection: LineConnection
    private var nextRequestId: Int64 = 1
    /// The highest cursor announced by a `changed` notification since it was last read.
    package private(set) var announcedCursor: Int64?
    /// How long a call waits for its answer.
    package var timeout: Duration
    /// The `hello` result.
    package private(set) var hello: HelloResult

    /// The most connecting and `hello` wait together, unless the caller says otherwise (`EXPENSE_CONNECT_TIMEOUT`).
    package static let defaultConnectTimeout: Duration = .seconds(10)

    /// Connects to the remote's addresses in turn (``RemoteConfiguration/rotation(shuffle:)``: the one that worked
    /// last first) and says `hello` to the first that answers, moving on when one cannot be reached, does not
    /// answer or is busy (``SyncError/movesOn``), or reports another ledger id than ``RemoteConfiguration/boundLedgerId``.
    /// For one address, the single-address connection (with the same ledger check).
    /// - Throws: as ``init(remote:address:clientId:clientName:timeout:connectTimeout:kinds:)``; after several
    ///   failures, ``Failover/combined(_:)`` of them.
    package convenience init(remote: RemoteConfiguration, clientId: UUID, clientName: String?,
                             timeout: Duration = .seconds(30), connectTimeout: Duration = SyncConnection.defaultConnectTimeout,
                             kinds: [RecordKind] = []) throws(SyncError) {
        let addresses = try remote.rotation().pass
        let opened: SyncConnection
        do {
            opened = try Failover.first(of: addresses) { address in
                let connection = try SyncConnection(remote: remote, address: address, clientId: clientId, clientName: clientName,
                                                    timeout: timeout, connectTimeout: connectTimeout, kinds: kinds)
                if let bound = remote.boundLedgerId, let reported = connection.hello.identity?.ledgerId, reported != bound {
                    connection.close()
                    throw SyncError.otherLedger(synced: LedgerBinding.describe(nil, bound),
                                                asked: LedgerBinding.describe(remote.key(at: address), reported))
                }
                return connection
            }
        } catch let error as SyncError {
            throw error
        } catch {
            throw .protocolError("\(error)")  // not reached: the body throws only SyncError
        }
        self.init(taking: opened)
    }

    /// Takes over `other`'s open connection (what the convenience initialiser found).
    private init(taking other: SyncConnection) {
        connection = other.connection
        nextRequestId = other.nextRequestId
        announcedCursor = other.announcedCursor
        timeout = other.timeout
        hello = other.hello
        address = other.address
    }

    /// The address of the remote's list this connection reached.
    package let address: RemoteAddress

    /// Connects to `address` (one of `remote`'s) and says `hello`, waiting at most `connectTimeout` for both together.
    /// - Throws: ``SyncError/unreachable(_:)`` (no connection within the time, refused, or busy),
    ///   ``SyncError/unanswered(_:)`` (connected, but no answer to `hello` within the time),
    ///   ``SyncError/unauthorized(_:)``, ``SyncError/protocolError(_:)``.
    package init(remote: RemoteConfiguration, address remoteAddress: RemoteAddress, clientId: UUID, clientName: String?,
                 timeout: Duration = .seconds(30), connectTimeout: Duration = SyncConnection.defaultConnectTimeout,
                 kinds: [RecordKind] = []) throws(SyncError) {
        self.address = remoteAddress
        let socketAddress = remoteAddress.socketAddress
        let server = remoteAddress.description
        let tls = try remote.tls.transport(for: server, address: socketAddress)
        let clock = ContinuousClock()
        let deadline = clock.now + connectTimeout
        do {
            connection = try LineConnection(connectingTo: socketAddress, timeout: connectTimeout, tls: tls)
        } catch .tls(let error) {
            throw .tlsRejected(code: error.code, message: "\(server): \(error)")
        } catch {
            throw .unreachable("cannot reach the server at \(server): \(error)")
        }
        if tls?.verification == .recordFingerprint, let seen = connection.peerCertificateFingerprint, let path = remote.tlsSettingsPath {
            // Trust on first use: from now on this certificate is pinned, and another one is a hard error.
            var pinned = remote.tls
            pinned.pin = seen
            try? pinned.save(path: path)
        }
        self.timeout = max(clock.now.duration(to: deadline), .milliseconds(1))
        hello = HelloResult(protocolVersion: 0, server: "", ledger: "", currency: .usd, cursor: 0, lastMutationId: 0)
        let helloId = try send(HelloRequest(protocolVersion: ProtocolVersion.current, ledger: remote.ledger, token: remote.token,
                                            clientId: clientId, clientName: clientName, kinds: kinds))
        do {
            hello = try receive(HelloRequest.self, id: helloId, peek: { _ in }, timedOut: {
                .unanswered("the server at \(server) accepted the connection but did not answer hello within "
                            + "\(Self.seconds(connectTimeout)) s (EXPENSE_CONNECT_TIMEOUT); is it an expensed, and is it stuck?")
            })
        } catch .unanswered(let text) {
            connection.close()
            throw .unanswered(text)
        }
        self.timeout = timeout
    }

    /// `duration` in seconds as a person reads it: `10`, `0.5`.
    package static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : String(format: "%.1f", Double(milliseconds) / 1000) // not money: seconds
    }

    /// Sends `request` and waits for its answer.
    /// - Throws: ``SyncError``: an RPC error −32001 is `unauthorized` (`throttled` when its reason says so);
    ///   a broken connection `unreachable`.
    package func call<Request: RPCMethodRequest>(_ request: Request) throws(SyncError) -> Request.Response {
        try call(request, afterWrite: {})
    }

    /// Sends `request`, runs `afterWrite` (a test's fault injection), then waits for the answer.
    package func call<Request: RPCMethodRequest>(_ request: Request, afterWrite: () throws -> Void) throws(SyncError) -> Request.Response {
        let id = try send(request)
        do { try afterWrite() } catch let error as SyncError { throw error } catch {
            throw .unreachable("\(error)")
        }
        return try receive(Request.self, id: id)
    }

    /// Writes `request` without waiting for its answer (to pipeline: the daemon prepares the next answer
    /// while this side works on the last); ``receive(_:id:)`` reads it. Answers come back in request order.
    /// - Returns: the request's id.
    package func send<Request: RPCMethodRequest>(_ request: Request) throws(SyncError) -> Int64 {
        let id = nextRequestId
        nextRequestId += 1
        do { try connection.write(request.requestLine(id: RequestID(id))) } catch {
            throw .unreachable("the connection to \(connection.address) broke: \(error)")
        }
        return id
    }

    /// Waits for the answer to the request `id` sent by ``send(_:)``.
    package func receive<Request: RPCMethodRequest>(_ type: Request.Type, id: Int64) throws(SyncError) -> Request.Response {
        try receive(type, id: id, peek: { _ in })
    }

    /// ``receive(_:id:)``, showing `peek` what has arrived of each line while it arrives, then the whole line
    /// before it is decoded (the pull reader sends its next request from the first bytes that name the next
    /// page's cursor, so the daemon encodes the next page while this one travels and is decoded).
    package func receive<Request: RPCMethodRequest>(_ type: Request.Type, id: Int64,
                                                    peek: (ArraySlice<UInt8>) -> Void) throws(SyncError) -> Request.Response {
        try receive(type, id: id, peek: peek, timedOut: { .unreachable(self.timedOut) })
    }

    /// ``receive(_:id:peek:)`` whose timeout is `timedOut` (`hello`'s is its own error).
    private func receive<Request: RPCMethodRequest>(_ type: Request.Type, id: Int64, peek: (ArraySlice<UInt8>) -> Void,
                                                    timedOut: () -> SyncError) throws(SyncError) -> Request.Response {
        while true {
            guard let line = try readLine(within: timeout, arriving: peek) else { throw timedOut() }
            peek(line[...])
            // A result type may read a whole answer line of the shape it expects straight into itself (a pull page:
            // a first sync reads a hundred of 10,000 records); anything else, errors included, takes the general
            // path below.
            if let (responseId, result) = Request.Response.decodeAnswerLine(line), responseId == RequestID(id) {
                return result
            }
            let message = try interpret(line)
            guard case .response(let responseId, _) = message else { continue }
            guard responseId == RequestID(id) || responseId == nil else {
                throw .protocolError("the daemon answered request \(responseId?.description ?? "null") instead of \(id)")
            }
            do {
                return try message.decodeResult(as: Request.Response.self)
            } catch {
                switch error {
                case .server(let rpcError) where rpcError.code == RPCError.unauthorizedCode
                    && rpcError.reason == RPCError.throttledReason:
                    throw .throttled(retryAfter: rpcError.retryAfter)
                case .server(let rpcError) where rpcError.code == RPCError.unauthorizedCode:
                    throw .unauthorized("the server refused ledger or token: \(rpcError.message)")
                case .server(let rpcError) where rpcError.code == RPCError.busyCode:
                    throw .unreachable("the server at \(address) is busy: \(rpcError.message)")
                case .server(let rpcError) where rpcError.reason == Failover.storageUnavailableReason:
                    // Its storage (PostgreSQL) is down; nothing of the request was acknowledged: another
                    // address of the list, or a later attempt, may serve it.
                    throw .unreachable("the server at \(address) cannot reach its storage: \(rpcError.message)")
                case .server(let rpcError) where rpcError.reason == RPCError.storageFullReason:
                    throw .storageFull("the server at \(address) has no disk space left; nothing of this \(Request.method) was stored")
                case .server(let rpcError) where rpcError.reason == RPCError.tlsPortReason:
                    throw .tlsRejected(code: "tls_server", message: "the server at \(address) speaks TLS on this port: connect with "
                                       + "\(RemoteTLS.scheme)\(address.socketAddress) (expense remote set \(RemoteTLS.scheme)\(address.socketAddress) with "
                                       + "--ca, --pin or --trust-first)")
                case .server(let rpcError) where rpcError.reason == "invalid_cursor" || rpcError.reason == "cursor_expired":
                    throw .historyReplaced("\(Request.method): \(rpcError.reason): \(rpcError.message)")
                case .server(let rpcError):
                    throw .protocolError("\(Request.method): \(rpcError.reason): \(rpcError.message)")
                case .decoding(let decoding):
                    throw .protocolError("cannot read the answer to \(Request.method): \(decoding)")
                }
            }
        }
    }

    /// Reads the answer to the request `id` and drops it, whatever it holds (a request sent on a wrong guess).
    /// - Throws: ``SyncError/unreachable(_:)``; ``SyncError/protocolError(_:)`` when another request is answered.
    package func discardAnswer(id: Int64) throws(SyncError) {
        while true {
            guard case .response(let responseId, _) = try readMessage() else { continue }
            guard responseId == RequestID(id) || responseId == nil else {
                throw .protocolError("the daemon answered request \(responseId?.description ?? "null") instead of \(id)")
            }
            return
        }
    }

    /// Waits up to `timeout` (`nil`: forever) for a `changed` notification; returns the newest cursor announced
    /// (also one that arrived during an earlier call), or `nil` on timeout.
    /// - Throws: ``SyncError/unreachable(_:)`` when the connection closes.
    package func waitForChange(timeout: Duration?) throws(SyncError) -> Int64? {
        if let cursor = announcedCursor {
            announcedCursor = nil
            return cursor
        }
        guard let line = try readLine(within: timeout) else { return nil }
        _ = try interpret(line)
        defer { announcedCursor = nil }
        return announcedCursor
    }

    /// Why a read failed when the daemon did not answer within the connection's timeout.
    private var timedOut: String { "the server at \(connection.address) did not answer within \(Self.seconds(timeout)) s" }

    /// Reads one message within the connection's timeout, setting notifications aside.
    private func readMessage() throws(SyncError) -> RPCIncoming {
        guard let line = try readLine(within: timeout) else { throw .unreachable(timedOut) }
        return try interpret(line)
    }

    /// Reads one line, or `nil` when `timeout` (`nil`: none) passes first; `arriving` is shown what has arrived
    /// of it while it is not complete.
    /// - Throws: ``SyncError/unreachable(_:)`` when the connection breaks or the daemon closes it.
    private func readLine(within timeout: Duration?, arriving: (ArraySlice<UInt8>) -> Void = { _ in }) throws(SyncError) -> [UInt8]? {
        let line: [UInt8]?
        do { line = try connection.readLine(timeout: timeout, arriving: arriving) } catch .timedOut {
            return nil
        } catch {
            throw .unreachable("the connection to \(connection.address) broke: \(error)")
        }
        guard let line else { throw .unreachable("the server at \(connection.address) closed the connection") }
        return line
    }

    /// Parses one line, setting notifications aside.
    private func interpret(_ line: [UInt8]) throws(SyncError) -> RPCIncoming {
        let message: RPCIncoming
        do { message = try RPCClientCodec.parse(line) } catch {
            throw .protocolError("cannot read the daemon's message: \(error)")
        }
        if case .notification(ChangedNotification.method, let params) = message,
           let changed = try? ChangedNotification(params: params) {
            announcedCursor = max(announcedCursor ?? 0, changed.cursor)
        }
        return message
    }

    /// Closes the connection.
    package func close() { connection.close() }
}
