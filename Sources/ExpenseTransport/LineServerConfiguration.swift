/// Limits and timeouts of a ``LineServer``. Timeouts are `Duration`s, measured on the monotonic clock.
public struct LineServerConfiguration: Sendable {
    /// The longest line accepted, not counting `\n` (the protocol's `--max-line`, default 1 MiB).
    public var maximumLineLength = 1_048_576
    /// Connections held at once; one more is accepted, sent ``busyMessage`` and closed.
    public var maximumConnections = 4096
    /// A connection not yet established (see ``AfterReply/establish``) is closed after this long: the PROXY header,
    /// the TLS handshake and the hello all within it.
    public var handshakeTimeout: Duration = .seconds(10)
    /// An established connection with no input and no request in flight is closed after this long; `nil`: never.
    public var idleTimeout: Duration? = nil
    /// While this many output bytes wait for the peer to read, the connection's input is not read (backpressure).
    public var outputHighWater = 1 << 20
    /// A peer that lets more than this many output bytes pile up is closed (it does not read its answers).
    public var outputLimit = 16 << 20
    /// While a request is in flight, input is read ahead only up to this many buffered bytes.
    public var inputReadAhead = 256 * 1024
    /// How long a connection being closed after an error may take to send what remains of its input.
    public var drainTimeout: Duration = .milliseconds(500)
    /// On ``LineServer/stop()``, how long in-flight requests may take before connections are cut.
    public var shutdownGrace: Duration = .seconds(10)
    /// Bytes sent, unsolicited, to a connection refused because ``maximumConnections`` are open.
    public var busyMessage: [UInt8] = []
    /// The certificate and key of a TLS port; `nil`: plaintext. The handshake counts toward ``handshakeTimeout``.
    public var tls: TLSServerIdentity? = nil
    /// Bytes sent, best effort, to a client that starts a TLS handshake on a plaintext port, before it is closed.
    public var protocolMismatchReply: [UInt8] = []
    /// Bytes sent in plaintext, best effort, to a plaintext client on a TLS port before it is closed: it cannot read
    /// a TLS alert, but it can read a line telling it to connect with TLS.
    public var plaintextClientReply: [UInt8] = []

    /// Peers whose connections must start with a PROXY protocol header (v1 or v2, see ``ProxyHeader``), read
    /// before TLS and framing; its client address then replaces the peer's in ``ConnectionHandle/peerHost``.
    /// Empty: none (every peer is a direct client, and a header is just bytes of a first line).
    public var proxyProtocolSources: [IPAddressRange] = []

    public init() {}

    /// How often the loop looks for timed-out connections: a quarter of the shortest timeout, 10 ms to 1 s.
    var sweepInterval: Duration {
        var shortest = min(handshakeTimeout, drainTimeout)
        if let idleTimeout { shortest = min(shortest, idleTimeout) }
        return min(max(shortest / 4, .milliseconds(10)), .seconds(1))
    }
}

extension Duration {
    /// Whole nanoseconds, saturating.
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? UInt64.max : whole &+ UInt64(attoseconds / 1_000_000_000)
    }
}
