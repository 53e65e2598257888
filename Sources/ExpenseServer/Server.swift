import ExpenseProtocol
import ExpenseTransport
import SystemKit

/// The daemon's network front: a ``LineServer`` whose sessions speak protocol 1 to the ledgers of a
/// ``LedgerProvider``.
///
/// Start it, then ``stop()`` it on SIGINT/SIGTERM and ``waitUntilStopped()``: it stops accepting, lets
/// in-flight requests finish (a push is answered only once durable), closes every connection. Closing the
/// ledgers afterwards is the caller's job.
public final class Server: Sendable {
    private let lineServer: LineServer
    /// The address bound, with the real port when port 0 was asked for.
    public var address: SocketAddress { lineServer.address }
    /// The configuration it runs with.
    public let configuration: ServerConfiguration
    /// Gives freed heap back to the system a second or two after a burst of pushes ends.
    private let heapReturn = HeapReturn()

    /// Binds the listening socket (raising the soft descriptor limit to the hard limit first).
    /// - Throws: ``TransportError`` when the address cannot be bound.
    public init(configuration: ServerConfiguration, ledgers: any LedgerProvider,
                log: ServerLog = .standardError) throws(TransportError) {
        Socket.raiseFileDescriptorLimit()
        HeapReturn.keepLargeBuffers()
        self.configuration = configuration
        var transport = LineServerConfiguration()
        transport.maximumLineLength = configuration.maximumLineLength
        transport.maximumConnections = configuration.maximumConnections
        transport.handshakeTimeout = configuration.helloTimeout
        transport.idleTimeout = configuration.idleTimeout
        transport.outputLimit = configuration.outputLimit
        transport.shutdownGrace = configuration.shutdownGrace
        transport.busyMessage = RPCResponse.error(id: nil, .busy)
        transport.tls = configuration.tls
        transport.proxyProtocolSources = configuration.proxyProtocolSources
        transport.protocolMismatchReply = RPCResponse.error(id: nil, .invalidRequest("this port speaks plaintext, not TLS", reason: "plaintext_port"))
        transport.plaintextClientReply = RPCResponse.error(id: nil, .invalidRequest("this port speaks TLS: connect with tls://HOST:PORT",
                                                                                    reason: RPCError.tlsPortReason))
        let context = SessionContext(ledgers: ledgers,
                                     throttle: AuthThrottle(freeFailures: configuration.authFreeFailures,
                                                            interval: configuration.authPenaltyInterval),
                                     sharedThrottle: (ledgers as? PostgresLedgerDirectory)?.loginThrottle(
                                         freeFailures: configuration.authFreeFailures, interval: configuration.authPenaltyInterval,
                                         log: log),
                                     log: log, serverName: configuration.serverName)
        let maximumLineLength = configuration.maximumLineLength
        lineServer = try LineServer(address: configuration.listen, configuration: transport, log: { log($0, $1) }) { connection in
            ClientSession(connection: connection, context: context, maximumLineLength: maximumLineLength)
        }
    }

    /// Connections closed for their protocol (failed or timed-out TLS handshakes, the wrong protocol on the port).
    public var failedHandshakeCount: Int { lineServer.failedHandshakeCount }

    /// Connections open now.
    public var connectionCount: Int { lineServer.connectionCount }

    /// Starts accepting connections.
    public func start() {
        lineServer.start()
        heapReturn.start(every: .seconds(1))
    }

    /// Stops accepting and closes connections once their in-flight requests are answered.
    public func stop() {
        heapReturn.stop()
        lineServer.stop()
    }

    /// Returns when every connection is closed.
    public func waitUntilStopped() async { await lineServer.waitUntilStopped() }
}
