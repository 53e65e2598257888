import ExpenseTransport

/// Everything `expensed serve` can tune about the network front.
public struct ServerConfiguration: Sendable {
    /// The version this daemon reports in `hello` (`"server":"expensed 0.1.0"`) and `--version`.
    public static let version = "0.1.0"

    /// Where to listen; port 0 picks a free port (see ``Server/address``).
    public var listen = SocketAddress(host: "127.0.0.1", port: 7468)
    /// Connections held at once; beyond, −32004 `busy` and close.
    public var maximumConnections = 4096
    /// The longest request line in bytes, not counting `\n`; beyond, −32002 `line_too_long` and close.
    public var maximumLineLength = 1_048_576
    /// A connection that has not completed `hello` within this is closed.
    public var helloTimeout: Duration = .seconds(10)
    /// An authenticated connection silent for this long (no request in flight) is closed; `nil`: never.
    public var idleTimeout: Duration? = nil
    /// The certificate and key of a TLS port (`serve --tls-cert/--tls-key`); `nil`: plaintext.
    public var tls: TLSServerIdentity? = nil
    /// A client that leaves more than this many bytes of answers unread is closed.
    public var outputLimit = 16 << 20
    /// On SIGINT/SIGTERM, how long in-flight requests may take before connections are cut.
    public var shutdownGrace: Duration = .seconds(10)
    /// Failed `hello`s from one address before its attempts are spaced out (see ``AuthThrottle``).
    public var authFreeFailures = 5
    /// The spacing of `hello` attempts from an address past its free failures.
    public var authPenaltyInterval: Duration = .seconds(1)

    public init() {}

    /// The `server` member of the `hello` result.
    var serverName: String { "expensed \(Self.version)" }
}
