import COpenSSL
import CRecordBIO
#if canImport(Glibc)
import Glibc
#endif

/// One TLS session: it turns the peer's ciphertext into plaintext and plaintext into ciphertext, and never
/// touches a socket.
///
/// The owner moves bytes: ``advance(receiving:deliver:)`` with what came from the network (runs the handshake and
/// decrypts), ``encrypt(_:)`` what is to be sent, then sends ``pendingCiphertext`` bytes
/// (``withPendingCiphertext(_:)``, ``consumeCiphertext(_:)``). So the epoll loop keeps its own non-blocking
/// `recv`/`send` (no SIGPIPE from OpenSSL's own `write`, no readiness OpenSSL hides in its buffers), and two
/// sessions can be tested against each other with no sockets at all. OpenSSL reads the received bytes where they
/// lie and writes its records into the one buffer they are sent from (CRecordBIO): no memory BIO between, whose
/// writes and reads cost a copy each way and about 4k instructions per record on each side.
///
/// - Important: Not thread-safe: one owner (a loop connection or a blocking client) uses it at a time.
public final class TLSSession {
    /// Which end of the handshake.
    public enum Role: Sendable { case server, client }

    /// Where the session is in its life.
    public enum State: Hashable, Sendable {
        /// The handshake has not finished; plaintext is neither delivered nor accepted.
        case handshaking
        /// Application data flows both ways.
        case established
        /// The peer sent `close_notify`: no more plaintext will come.
        case finished
        /// The session failed; the connection must be closed.
        case failed(TLSError)
    }

    public private(set) var state = State.handshaking
    public let role: TLSSession.Role
    /// The peer's certificate fingerprint, once the handshake has finished (a client always sees one).
    public private(set) var peerFingerprint: CertificateFingerprint?

    private let context: TLSContext
    private let ssl: OpaquePointer
    /// The session's one BIO (owned by `ssl`): OpenSSL reads the peer's ciphertext from it and writes ours into it.
    private let records: OpaquePointer
    private var receivedAny = false
    private var closeNotifyQueued = false
    /// Whether OpenSSL may hold this session's two record buffers (about 17 KiB each), or its BIO a buffer of
    /// ciphertext: set by every call that reads or writes a record, cleared when ``releaseRecordBuffers()`` gave
    /// them back.
    public private(set) var mayHoldRecordBuffers = false
    /// The name verified (client): for the error message of a mismatch.
    private let serverName: String?

    /// A session on `context`; a client verifies `serverName` (a host name, sent as SNI, or an IP address).
    /// - Throws: ``TLSError/setupFailed(reason:)``.
    public init(context: TLSContext, serverName: String? = nil) throws(TLSError) {
        ERR_clear_error()
        guard let ssl = SSL_new(context.pointer) else { throw .setupFailed(reason: TLSContext.takeErrorText()) }
        guard let records = record_bio_new() else {
            SSL_free(ssl)
            throw .setupFailed(reason: "cannot allocate the session's BIO")
        }
        SSL_set_bio(ssl, records, records)  // the SSL owns the BIO from here on (one reference for both ends)
        self.ssl = ssl
        self.records = records
        self.context = context
        self.role = context.role
        let name = serverName.map(Self.bareHost)
        self.serverName = name
        if role == .server {
            SSL_set_accept_state(ssl)
        } else {
            SSL_set_connect_state(ssl)
            if let name {
                let isAddress = Self.isIPAddress(name)
                if !isAddress { _ = copenssl_set_tlsext_host_name(ssl, name) }
                if case .authority = context.verification {
                    let set = isAddress ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) : SSL_set1_host(ssl, name)
                    guard set == 1 else {
                        SSL_free(ssl)
                        throw .setupFailed(reason: "cannot verify the name '\(name)'")
                    }
                }
            }
        }
    }

    deinit { SSL_free(ssl) }

    /// Ciphertext bytes waiting to be sent to the peer.
    public var pendingCiphertext: Int {
        var count = 0
        _ = record_bio_output(records, &count)
        return count
    }

    /// Whether the handshake is still running.
    public var isHandshaking: Bool { state == .handshaking }

    /// The peer closed the TCP connection: during the handshake that is a failure.
    public func receiveEndOfStream() {
        if state == .handshaking { state = .failed(.closedDuringHandshake) }
    }

    /// Takes `ciphertext`, bytes the peer sent (none: just run the session, as a client does to start), runs the
    /// handshake as far as the bytes received allow, then decrypts all complete records, handing each piece of
    /// plaintext to `deliver`. Afterwards ``state`` says whether the session is established, finished or failed,
    /// and ``pendingCiphertext`` may hold handshake messages to send. OpenSSL reads `ciphertext` where it lies;
    /// what it did not read (a record cut short) is kept for the next call.
    ///
    /// The first byte of a TLS peer opens a handshake or alert record; anything else is a plaintext peer, and the
    /// session fails at once (``TLSError/plaintextClient`` or ``TLSError/plaintextServer``) without showing the
    /// bytes anywhere.
    public func advance(receiving ciphertext: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
                        deliver: (UnsafeRawBufferPointer) -> Void) {
        guard !isFailed else { return }
        if let first = ciphertext.first, !receivedAny {
            receivedAny = true
            // TLS record content types: 20 change_cipher_spec, 21 alert, 22 handshake, 23 application_data.
            guard (20...23).contains(first) else {
                state = .failed(role == .server ? .plaintextClient : .plaintextServer)
                return
            }
        }
        if let base = ciphertext.baseAddress, !ciphertext.isEmpty { record_bio_lend_input(records, base, ciphertext.count) }
        defer {
            if record_bio_keep_input(records) != 0 { state = .failed(.handshakeFailed(reason: "out of memory")) }
        }
        mayHoldRecordBuffers = true
        if state == .handshaking {
            Self.clearErrorQueue()
            let result = SSL_do_handshake(ssl)
            if result == 1 {
                finishHandshake()
            } else {
                let error = SSL_get_error(ssl, result)
                if error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE {
                    state = .failed(handshakeFailure())
                }
                return
            }
        }
        guard state == .established else { return }
        withUnsafeTemporaryAllocation(byteCount: 16 * 1024, alignment: 16) { buffer in
            guard let base = buffer.baseAddress else { return }
            while true {
                Self.clearErrorQueue()
                let count = SSL_read(ssl, base, Int32(buffer.count))
                if count > 0 {
                    deliver(UnsafeRawBufferPointer(start: base, count: Int(count)))
                    // Another SSL_read with no ciphertext left would only answer WANT_READ (and, with released
                    // buffers, take and free a record buffer to say so): stop while nothing more can be read.
                    guard SSL_has_pending(ssl) == 1 || record_bio_input_pending(records) > 0 else { return }
                    continue
                }
                switch SSL_get_error(ssl, count) {
                case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return
                case SSL_ERROR_ZERO_RETURN: state = .finished
                default: state = .failed(.handshakeFailed(reason: TLSContext.takeErrorText()))
                }
                return
            }
        }
    }

    /// Encrypts as much of `plaintext` as OpenSSL takes (all of it, unless it fails); nothing before the
    /// handshake finishes.
    /// - Returns: the number of plaintext bytes consumed.
    public func encrypt(_ plaintext: UnsafeRawBufferPointer) -> Int {
        guard state == .established, let base = plaintext.baseAddress, !plaintext.isEmpty else { return 0 }
        mayHoldRecordBuffers = true
        Self.clearErrorQueue()
        let count = SSL_write(ssl, base, Int32(clamping: plaintext.count))
        if count > 0 { return Int(count) }
        let error = SSL_get_error(ssl, count)
        if error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE {
            state = .failed(.handshakeFailed(reason: TLSContext.takeErrorText()))
        }
        return 0
    }

    /// Queues `close_notify` once (the peer reads a clean end of stream).
    /// - Returns: whether it was queued now.
    @discardableResult
    public func close() -> Bool {
        guard !closeNotifyQueued, state == .established || state == .finished else { return false }
        closeNotifyQueued = true
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
        return pendingCiphertext > 0
    }

    /// Gives OpenSSL's record buffers, and the BIO's buffers, back while the session is quiet; the next record
    /// takes them again.
    ///
    /// The daemon's sessions keep their buffers while they carry traffic (taking and freeing 17 KiB twice per
    /// request cost about 1.2k instructions per `ping`) and the loop's sweep calls this for a connection that has
    /// been quiet for a sweep interval, so thousands of idle sessions hold none.
    /// Nothing is freed while a record is partly received or not yet fully decrypted, and ciphertext not yet sent
    /// stays.
    /// - Returns: whether buffers were given back now.
    @discardableResult
    public func releaseRecordBuffers() -> Bool {
        guard mayHoldRecordBuffers, state == .established, SSL_has_pending(ssl) == 0,
              record_bio_input_pending(records) == 0, pendingCiphertext == 0 else { return false }
        guard SSL_free_buffers(ssl) == 1 else { return false }
        mayHoldRecordBuffers = false
        record_bio_release_buffers(records)
        return true
    }

    /// Calls `body` with the ciphertext waiting to be sent.
    public func withPendingCiphertext<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        var count = 0
        let bytes = record_bio_output(records, &count)
        return body(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// Marks `count` bytes of the pending ciphertext sent. The buffer is kept for the next records while the
    /// session carries traffic, and given back when it has been quiet (``releaseRecordBuffers()``).
    public func consumeCiphertext(_ count: Int) {
        record_bio_consume_output(records, max(count, 0))
    }

    /// Whether this (client) session holds a session ticket from the peer: a TLS 1.3 `NewSessionTicket` (stateless
    /// or stateful) or a TLS 1.2 ticket, which would let it resume. The daemon sends none (``TLSContext/server(certificateFile:keyFile:)``,
    /// docs/reliability.md "TLS"); tests read this after a round trip, when the client has processed what followed the handshake.
    public var holdsSessionTicket: Bool {
        guard let session = SSL_get_session(ssl) else { return false }
        return SSL_SESSION_has_ticket(session) == 1
    }

    /// Bytes of ciphertext buffer the session holds outside OpenSSL: received bytes kept and records not yet sent,
    /// and the room kept for more (0 once a quiet session was released).
    public var ciphertextBufferCapacity: Int { record_bio_capacity(records) }

    /// Empties this thread's OpenSSL error queue before a call whose failure `SSL_get_error` reads from it.
    /// `ERR_clear_error` walks every slot of the queue (about 800 instructions in OpenSSL 3, and a ping took two);
    /// the queue is nearly always empty already, which `ERR_peek_error` sees for a fraction of that.
    private static func clearErrorQueue() {
        if ERR_peek_error() != 0 { ERR_clear_error() }
    }

    private var isFailed: Bool {
        if case .failed = state { return true }
        return false
    }

    /// The handshake finished: record the peer's fingerprint and check a pin.
    private func finishHandshake() {
        if let certificate = SSL_get1_peer_certificate(ssl) {
            peerFingerprint = CertificateFactory.fingerprint(of: certificate)
            X509_free(certificate)
        }
        if case .pin(let expected) = context.verification {
            guard let actual = peerFingerprint else {
                state = .failed(.certificateRejected(detail: "the server sent no certificate"))
                return
            }
            guard actual == expected else {
                state = .failed(.pinMismatch(expected: expected, actual: actual))
                return
            }
        }
        state = .established
    }

    /// Why the handshake failed: the certificate check that said no (client), else OpenSSL's reason.
    private func handshakeFailure() -> TLSError {
        let queue = TLSContext.takeErrorText()
        guard role == .client else { return .handshakeFailed(reason: queue) }
        let result = Int32(SSL_get_verify_result(ssl))
        guard result != X509_V_OK else {
            return receivedAny ? .handshakeFailed(reason: queue) : .closedDuringHandshake
        }
        let detail = String(cString: X509_verify_cert_error_string(Int(result)))
        switch result {
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            return .hostMismatch(host: serverName ?? "?")
        case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID:
            return .certificateExpired(detail: detail)
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
             X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT,
             X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            return .unknownAuthority(detail: detail)
        default:
            return .certificateRejected(detail: detail)
        }
    }

    /// `[::1]` → `::1`.
    static func bareHost(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// Whether `host` is an IPv4 or IPv6 literal (verified against the certificate's IP entries, never sent as SNI).
    static func isIPAddress(_ host: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
    }
}
