/// What went wrong in TLS: loading a certificate or key, a handshake, or verifying the peer.
///
/// Each case has a stable snake_case ``code`` (scripts and tests match on it) and a message that says which
/// check failed, so a person can tell a wrong CA from a wrong host name, an expired certificate or a pin.
public enum TLSError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A certificate, key or CA file could not be read or parsed.
    case unreadableFile(path: String, reason: String)
    /// The private key file may be read by its group or by others (it must be 0600 or stricter).
    case keyReadableByOthers(path: String, mode: UInt32)
    /// The certificate does not belong to the private key.
    case keyMismatch(certificate: String, key: String)
    /// The peer's certificate is not signed by a trusted authority (the system store, or `--ca`).
    case unknownAuthority(detail: String)
    /// The peer's certificate is valid but not for the host name or IP address connected to.
    case hostMismatch(host: String)
    /// The peer's certificate has expired (or is not valid yet).
    case certificateExpired(detail: String)
    /// The peer's certificate failed verification for another reason.
    case certificateRejected(detail: String)
    /// The peer's certificate is not the pinned one.
    case pinMismatch(expected: CertificateFingerprint, actual: CertificateFingerprint)
    /// The server answered the TLS handshake in plaintext: it does not serve TLS on this port.
    case plaintextServer
    /// A client spoke plaintext to a TLS port.
    case plaintextClient
    /// A client started a TLS handshake on a plaintext port.
    case tlsClientOnPlaintextPort
    /// The peer closed the connection before the handshake finished.
    case closedDuringHandshake
    /// The handshake failed (protocol version, cipher, malformed record…); `reason` is OpenSSL's, never the peer's bytes.
    case handshakeFailed(reason: String)
    /// OpenSSL could not set something up (out of memory, a bad option).
    case setupFailed(reason: String)

    /// A stable snake_case code.
    public var code: String {
        switch self {
        case .unreadableFile: "tls_file_unreadable"
        case .keyReadableByOthers: "tls_key_permissions"
        case .keyMismatch: "tls_key_mismatch"
        case .unknownAuthority: "unknown_ca"
        case .hostMismatch: "host_mismatch"
        case .certificateExpired: "certificate_expired"
        case .certificateRejected: "certificate_rejected"
        case .pinMismatch: "pin_mismatch"
        case .plaintextServer: "plaintext_server"
        case .plaintextClient: "plaintext_client"
        case .tlsClientOnPlaintextPort: "tls_on_plaintext_port"
        case .closedDuringHandshake: "handshake_closed"
        case .handshakeFailed: "handshake_failed"
        case .setupFailed: "tls_setup_failed"
        }
    }

    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason): "cannot read \(path): \(reason)"
        case .keyReadableByOthers(let path, let mode):
            "the private key \(path) is readable by its group or others (mode \(String(mode & 0o777, radix: 8))); "
                + "run 'chmod 600 \(path)'"
        case .keyMismatch(let certificate, let key): "the key \(key) does not belong to the certificate \(certificate)"
        case .unknownAuthority(let detail):
            "the server's certificate is not signed by a trusted authority (\(detail)); pass --ca FILE for a private CA, "
                + "or --pin sha256:HEX for a self-signed daemon"
        case .hostMismatch(let host): "the server's certificate is not valid for '\(host)' (host name mismatch)"
        case .certificateExpired(let detail): "the server's certificate has expired or is not valid yet (\(detail))"
        case .certificateRejected(let detail): "the server's certificate was rejected: \(detail)"
        case .pinMismatch(let expected, let actual):
            "the server's certificate is \(actual), not the pinned \(expected); if the daemon's certificate was "
                + "replaced on purpose, re-pin with 'expense remote set … --pin \(actual)'"
        case .plaintextServer: "the server answered in plaintext: it does not serve TLS on this port (drop tls:// only if the network is trusted)"
        case .plaintextClient: "a client spoke plaintext to a TLS port"
        case .tlsClientOnPlaintextPort: "a client started a TLS handshake on a plaintext port"
        case .closedDuringHandshake: "the server closed the connection during the TLS handshake"
        case .handshakeFailed(let reason): "TLS handshake failed: \(reason)"
        case .setupFailed(let reason): "TLS setup failed: \(reason)"
        }
    }
}
