import SystemKit
#if canImport(Glibc)
import Glibc
import CEpoll
#endif

/// A blocking client connection that sends and receives newline-terminated lines.
///
/// For the CLI, the sync engine, the benchmark and tests. Every call blocks the calling thread (reads and
/// connects wait with `poll` up to a timeout).
///
/// - Important: Do not hold long blocking reads on Swift's cooperative pool (inside an `async` function or
///   a `Task`): the pool has one thread per core (two here), so two idle reads stop every task of the
///   process. Use it from the main thread, a `Thread`, or wrap short request/response exchanges only.
///   One connection is used by one thread at a time.
public final class LineConnection {
    /// The address connected to.
    public let address: SocketAddress
    var fd: Int32
    var framer: LineFramer
    var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// The TLS layer, for a `tls://` connection (see LineConnection+TLS.swift).
    var tls: TLSSession?

    /// The server certificate's SHA-256 fingerprint, on a TLS connection.
    public var peerCertificateFingerprint: CertificateFingerprint? { tls?.peerFingerprint }

    /// Connects to `address`, trying each resolved address, within `timeout`.
    /// - Parameter maximumLineLength: the longest line ``readLine(timeout:)`` accepts (answers can be large).
    /// - Parameter tls: TLS settings (the handshake and the certificate check then finish within `timeout` too);
    ///   `nil`: plaintext.
    /// - Parameter preamble: bytes sent in clear as soon as the connection opens, before TLS: a PROXY protocol
    ///   header, for tests and tools that stand in for a load balancer (empty: nothing).
    /// - Throws: ``TransportError/connectFailed(address:errno:)``, ``TransportError/timedOut``, resolve errors,
    ///   ``TransportError/tls(_:)`` (the certificate check that failed, or a plaintext server).
    public init(connectingTo address: SocketAddress, timeout: Duration = .seconds(5),
                maximumLineLength: Int = 256 << 20, tls: TLSClientConfiguration? = nil,
                preamble: [UInt8] = []) throws(TransportError) {
        self.address = address
        self.framer = LineFramer(maximumLineLength: maximumLineLength)
        let deadline = ContinuousClock.now + timeout
        var failure = TransportError.connectFailed(address: address.description, errno: ECONNREFUSED)
        for candidate in try address.resolve(passive: false) {
            do throws(TransportError) {
                fd = try Self.connect(candidate, timeout: timeout)
                Socket.setNoDelay(fd)
                if !preamble.isEmpty {
                    do { try sendAll(preamble) } catch {
                        Glibc.close(fd)
                        fd = -1
                        throw error
                    }
                }
                if let tls {
                    do { try startTLS(tls, deadline: deadline) } catch {
                        Glibc.close(fd)
                        fd = -1
                        throw error
                    }
                }
                return
            } catch .tls(let error) {
                throw .tls(error)  // a certificate problem is the same at every address: stop at the first
            } catch .timedOut {
                failure = .timedOut
            } catch .connectFailed(_, let code) {
                failure = .connectFailed(address: address.description, errno: code)
            } catch {
                failure = error
            }
        }
        throw failure
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    private static func connect(_ candidate: ResolvedAddress, timeout: Duration) throws(TransportError) -> Int32 {
        let fd = socket(candidate.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .lastError("socket") }
        do throws(TransportError) {
            try Socket.setNonBlocking(fd, true)
            let status = candidate.withSockAddr { Glibc.connect(fd, $0, $1) }
            if status != 0 {
                guard errno == EINPROGRESS else { throw TransportError.connectFailed(address: "", errno: errno) }
                guard try waitFor(fd, events: Int16(POLLOUT), timeout: timeout) else { throw TransportError.timedOut }
                var code: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
                guard code == 0 else { throw TransportError.connectFailed(address: "", errno: code) }
            }
            try Socket.setNonBlocking(fd, false)
            return fd
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// Waits until `fd` is ready for `events`; `false` on timeout (`nil` timeout: wait forever).
    static func waitFor(_ fd: Int32, events: Int16, timeout: Duration?) throws(TransportError) -> Bool {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                if left <= .zero { return false }
                milliseconds = Int32(clamping: left.nanoseconds / 1_000_000 + 1)
            }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready: Int32
            do throws(SystemCallError) {
                ready = try syscall(where: "poll") { poll(&entry, 1, milliseconds) }
            } catch {
                throw .systemCall(error.call, errno: error.errno)
            }
            if ready > 0 { return true }
            // 0: re-check the deadline
        }
    }

    /// Writes raw bytes (no newline added): for tests that need to send broken input.
    /// - Throws: ``TransportError/connectionClosed`` when the peer is gone.
    public func write(_ bytes: some Collection<UInt8>) throws(TransportError) {
        let array = Array(bytes)
        if tls != nil {
            try writeEncrypted(array)
            return
        }
        try sendAll(array)
    }

    /// Sends every byte of `array` to the socket (blocking).
    func sendAll(_ array: [UInt8]) throws(TransportError) {
        do throws(SystemCallError) {
            // `withUnsafeBytes` rethrows untyped: the error crosses it in a `Result`.
            try array.withUnsafeBytes { buffer in
                Result { () throws(SystemCallError) in try writeAll(buffer, where: "send") { Socket.send(fd, $0) } }
            }.get()
        } catch where error.errno == EPIPE || error.errno == ECONNRESET {
            throw .connectionClosed
        } catch {
            throw .systemCall(error.call, errno: error.errno)
        }
    }

    /// Writes one line, adding the `\n`.
    public func writeLine(_ line: some Collection<UInt8>) throws(TransportError) {
        var bytes = Array(line)
        bytes.append(0x0A)
        try write(bytes)
    }

    /// Writes one line of text, adding the `\n`.
    public func writeLine(_ line: String) throws(TransportError) {
        try writeLine(Array(line.utf8))
    }

    /// Reads the next non-empty line (without `\n`), or `nil` when the peer closed the connection.
    /// - Parameters:
    ///   - timeout: how long to wait for a complete line; `nil` waits forever.
    ///   - arriving: shown what has arrived of the line each time more of it arrives and it is not complete yet
    ///     (a reader that can act on a long line's start: the pull reader asks for the next page from there).
    /// - Throws: ``TransportError/timedOut``, ``TransportError/lineTooLong``, ``TransportError/connectionClosed``
    ///   on a reset.
    public func readLine(timeout: Duration? = .seconds(30),
                         arriving: (ArraySlice<UInt8>) -> Void = { _ in }) throws(TransportError) -> [UInt8]? {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        var received = false
        while true {
            switch framer.nextLine() {
            case .line(let bytes)?: return Array(bytes)
            case .tooLong?: throw .lineTooLong
            case nil: if received, framer.bufferedByteCount > 0 { arriving(framer.unterminatedLine) }
            }
            let left = deadline.map { ContinuousClock.now.duration(to: $0) }
            guard try Self.waitFor(fd, events: Int16(POLLIN), timeout: left) else { throw .timedOut }
            guard let count = try readSome() else { continue }
            if count == 0 { return nil }
            if tls != nil {
                guard try receiveEncrypted(count) else { return nil }
            } else {
                readBuffer.withUnsafeBytes { framer.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            }
            received = true
        }
    }

    /// One read into ``readBuffer`` after `poll` said readable: the byte count (0 at end of stream), or `nil`
    /// when it still finds nothing (`EAGAIN`: wait again).
    /// - Throws: ``TransportError/connectionClosed`` on a reset.
    func readSome() throws(TransportError) -> Int? {
        do throws(SystemCallError) {
            let result = try syscall(blocking: false, where: "read") {
                readBuffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            }
            guard case .processed(let count) = result else { return nil }
            return count
        } catch where error.errno == ECONNRESET {
            throw .connectionClosed
        } catch {
            throw .systemCall(error.call, errno: error.errno)
        }
    }

    /// Reads the next line as text (invalid UTF-8 is replaced), or `nil` at end of stream.
    public func readTextLine(timeout: Duration? = .seconds(30)) throws(TransportError) -> String? {
        try readLine(timeout: timeout).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Shuts down the sending side: the peer reads end of stream after what was sent.
    public func shutdownWrite() {
        if let tls, tls.close() { try? sendPendingCiphertext() }
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes the connection (also done when the object is released).
    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
