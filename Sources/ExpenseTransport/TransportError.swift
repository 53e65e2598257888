#if canImport(Glibc)
import Glibc
#endif

/// What went wrong at the socket level.
public enum TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `HOST:PORT` could not be parsed.
    case invalidAddress(String)
    /// The host name did not resolve.
    case resolveFailed(host: String, reason: String)
    /// A system call failed with `errno`.
    case systemCall(String, errno: Int32)
    /// Connecting did not succeed (refused, unreachable…).
    case connectFailed(address: String, errno: Int32)
    /// A connect, read or write did not finish in time.
    case timedOut
    /// The peer sent a line longer than the limit.
    case lineTooLong
    /// The peer closed the connection.
    case connectionClosed
    /// TLS failed: a handshake, a certificate check, a pin, or the wrong protocol on the port.
    case tls(TLSError)

    /// A stable snake_case code.
    public var code: String {
        switch self {
        case .invalidAddress: "invalid_address"
        case .resolveFailed: "resolve_failed"
        case .systemCall: "system_call_failed"
        case .connectFailed: "connect_failed"
        case .timedOut: "timed_out"
        case .lineTooLong: "line_too_long"
        case .connectionClosed: "connection_closed"
        case .tls(let error): error.code
        }
    }

    public var description: String {
        switch self {
        case .invalidAddress(let text): "invalid address '\(text)' (expected HOST:PORT)"
        case .resolveFailed(let host, let reason): "cannot resolve '\(host)': \(reason)"
        case .systemCall(let name, let code): "\(name) failed: \(Self.errnoText(code))"
        case .connectFailed(let address, let code): "cannot connect to \(address): \(Self.errnoText(code))"
        case .timedOut: "timed out"
        case .lineTooLong: "line too long"
        case .connectionClosed: "connection closed by peer"
        case .tls(let error): error.description
        }
    }

    static func errnoText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }

    /// The error for the current `errno` after the system call `name` failed.
    static func lastError(_ name: String) -> TransportError {
        .systemCall(name, errno: errno)
    }
}
