/// Why the loop closes a connection for its protocol: logged once when it closes (OpenSSL's reason or our own
/// classification, never the peer's bytes) and counted in ``LineServer/failedHandshakeCount``.
enum ConnectionFailure: Hashable, Sendable, CustomStringConvertible {
    /// A failed TLS handshake, or the wrong protocol on the port.
    case tls(TLSError)
    /// A listed proxy's connection without a valid PROXY header (`serve --proxy-protocol`).
    case proxyHeader(ProxyHeaderError)

    /// The failure's stable snake_case code.
    var code: String {
        switch self {
        case .tls(let error): error.code
        case .proxyHeader(let error): error.code
        }
    }

    var description: String {
        switch self {
        case .tls(let error): error.description
        case .proxyHeader(let error): error.description
        }
    }
}
