import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// A configured OpenSSL `SSL_CTX`: the certificate and key of a server, or the trust settings of a client.
///
/// TLS 1.2 at least (1.3 preferred: OpenSSL negotiates the highest both sides have), no renegotiation, and a TCP
/// close without `close_notify` read as an ordinary end of stream (newline framing already detects a truncated
/// last line; see docs/reliability.md, "TLS").
// @unchecked Sendable: the SSL_CTX is fully configured in the initialiser and never changed afterwards; OpenSSL
// documents `SSL_new` on a shared, unmodified SSL_CTX as thread-safe, and the context is reference counted, so a
// session created from it keeps it alive after this object is released.
public final class TLSContext: @unchecked Sendable {
    let pointer: OpaquePointer
    public let role: TLSSession.Role
    /// For a client: how the server's certificate is checked.
    let verification: TLSVerification?

    private init(role: TLSSession.Role, verification: TLSVerification?) throws(TLSError) {
        guard let context = SSL_CTX_new(role == .server ? TLS_server_method() : TLS_client_method()) else {
            throw .setupFailed(reason: TLSContext.takeErrorText())
        }
        pointer = context
        self.role = role
        self.verification = verification
        _ = copenssl_ctx_set_min_proto_version(context, TLS1_2_VERSION)
        _ = SSL_CTX_set_options(context, UInt64(copenssl_op_ignore_unexpected_eof() | copenssl_op_no_renegotiation()))
        _ = copenssl_ctx_set_mode(context, copenssl_mode_partial_write_moving_buffer())
    }

    deinit { SSL_CTX_free(pointer) }

    /// A server context from a PEM certificate chain and a PEM private key.
    /// - Throws: ``TLSError/keyReadableByOthers(path:mode:)`` when the key file's mode lets its group or others
    ///   read it; ``TLSError/unreadableFile(path:reason:)``; ``TLSError/keyMismatch(certificate:key:)``.
    public static func server(certificateFile: String, keyFile: String) throws(TLSError) -> TLSContext {
        var status = stat()
        guard stat(keyFile, &status) == 0 else {
            throw .unreadableFile(path: keyFile, reason: String(cString: strerror(errno)))
        }
        guard status.st_mode & 0o077 == 0 else { throw .keyReadableByOthers(path: keyFile, mode: UInt32(status.st_mode)) }
        let context = try TLSContext(role: .server, verification: nil)
        ERR_clear_error()
        guard SSL_CTX_use_certificate_chain_file(context.pointer, certificateFile) == 1 else {
            throw .unreadableFile(path: certificateFile, reason: takeErrorText())
        }
        guard SSL_CTX_use_PrivateKey_file(context.pointer, keyFile, SSL_FILETYPE_PEM) == 1 else {
            throw .unreadableFile(path: keyFile, reason: takeErrorText())
        }
        guard SSL_CTX_check_private_key(context.pointer) == 1 else {
            ERR_clear_error()
            throw .keyMismatch(certificate: certificateFile, key: keyFile)
        }
        // No session resumption state kept per client: every connection is a full handshake, and a daemon's
        // memory does not grow with the clients it has seen.
        _ = copenssl_ctx_set_session_cache_mode(context.pointer, Int(SSL_SESS_CACHE_OFF))
        _ = SSL_CTX_set_options(context.pointer, UInt64(copenssl_op_no_tickets()))
        // TLS 1.3: SSL_OP_NO_TICKET alone still sends (stateful) tickets after the handshake; none are wanted.
        _ = SSL_CTX_set_num_tickets(context.pointer, 0)
        // A daemon holds thousands of mostly idle sessions: OpenSSL's two record buffers (~17 KiB each) are given
        // back once a connection is quiet (TLSSession.releaseRecordBuffers, from the loop's sweep), not after every
        // record as SSL_MODE_RELEASE_BUFFERS would: taking and freeing them per record cost ~1.2k instructions a
        // ping.
        return context
    }

    /// A client context verifying the server as `verification` says.
    /// - Throws: ``TLSError/unreadableFile(path:reason:)`` for an unreadable CA file.
    public static func client(_ verification: TLSVerification) throws(TLSError) -> TLSContext {
        let context = try TLSContext(role: .client, verification: verification)
        switch verification {
        case .authority(let caFile):
            ERR_clear_error()
            if let caFile {
                guard SSL_CTX_load_verify_locations(context.pointer, caFile, nil) == 1 else {
                    throw .unreadableFile(path: caFile, reason: takeErrorText())
                }
            } else {
                // Debian's /etc/ssl/certs (OpenSSL's default directory links there), and the bundle file.
                _ = SSL_CTX_set_default_verify_paths(context.pointer)
                _ = SSL_CTX_load_verify_locations(context.pointer, nil, "/etc/ssl/certs")
                ERR_clear_error()
            }
            SSL_CTX_set_verify(context.pointer, SSL_VERIFY_PEER, nil)
        case .pin, .recordFingerprint:
            // The certificate is checked against the fingerprint after the handshake (self-signed daemons).
            SSL_CTX_set_verify(context.pointer, SSL_VERIFY_NONE, nil)
        }
        return context
    }

    /// OpenSSL's error queue as text (its own reason strings, never peer data), emptied.
    static func takeErrorText() -> String {
        var parts: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            parts.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return parts.isEmpty ? "unknown error" : parts.joined(separator: "; ")
    }
}

/// How a client checks the server's certificate.
public enum TLSVerification: Hashable, Sendable {
    /// Full verification: a chain to a trusted authority (`caFile`, or the system's store when `nil`) and the host
    /// name or IP address in the certificate (PostgreSQL's `verify-full`).
    case authority(caFile: String?)
    /// The leaf certificate must have this fingerprint (self-signed daemons); the chain and name are not checked.
    case pin(CertificateFingerprint)
    /// Any certificate is accepted and its fingerprint recorded (the first connection of `--trust-first`).
    case recordFingerprint
}

/// A client's TLS settings for one connection: how to verify, and the name to verify and send as SNI.
public struct TLSClientConfiguration: Hashable, Sendable {
    public var verification: TLSVerification
    /// The host name or IP address the certificate must name; `nil`: the host connected to.
    public var serverName: String?

    public init(verification: TLSVerification, serverName: String? = nil) {
        self.verification = verification
        self.serverName = serverName
    }
}
