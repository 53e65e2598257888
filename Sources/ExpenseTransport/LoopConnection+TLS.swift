import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// The socket side of a loop connection: plaintext straight between the socket and the framer/output queue, or
/// through its ``TLSSession``. The loop's framing, limits, backpressure and timeouts see plaintext either way.
/// A listed proxy's PROXY header (``ProxyHeader``) is read here first, before TLS and framing.
extension LoopConnection {
    /// What one read attempt did.
    enum SocketRead {
        /// `count` bytes came off the socket (their plaintext, if any, went to the framer).
        case received(count: Int)
        /// The peer closed its side (or sent TLS `close_notify`).
        case endOfStream
        /// Nothing to read now: wait for `EPOLLIN`.
        case wouldBlock
        /// The connection is broken, or its TLS session failed (recorded in ``protocolFailure``).
        case failed
    }

    /// What one write attempt did.
    enum SocketWrite {
        /// Some bytes went out.
        case sent
        /// The socket's buffer is full: wait for `EPOLLOUT`.
        case wouldBlock
        /// Nothing can be sent now (plaintext waits for the TLS handshake).
        case nothingToSend
        /// The connection is broken (or its TLS session failed).
        case failed
    }

    /// Ciphertext queued in the TLS session at most; past it, plaintext waits in ``output``, where the loop's
    /// high-water mark and output cap see it (so a peer that does not read is treated the same over TLS).
    private static let ciphertextQueueLimit = 64 * 1024

    /// Reads once from the socket (through SystemKit's ``syscall(blocking:where:_:)``); the plaintext goes to
    /// the framer. On a connection from a listed proxy the PROXY header comes first: its bytes are kept until
    /// it is complete (then ``receivedProxyHeader`` is set and what follows it goes on as below).
    /// - Parameter mismatchReply: sent (best effort, in plaintext) to a peer speaking the other protocol before it is
    ///   closed: a TLS client on a plaintext port, or a plaintext client on a TLS port.
    func readSocket(into scratch: UnsafeMutableRawBufferPointer, mismatchReply: [UInt8]) -> SocketRead {
        let result: IOResult<Int>
        do throws(SystemCallError) {
            result = try syscall(blocking: false, where: "read") { read(id.fd, scratch.baseAddress, scratch.count) }
        } catch {
            return .failed
        }
        guard case .processed(let count) = result else { return .wouldBlock }
        guard count > 0 else {
            if let partial = proxyHeaderBytes {
                // A health check that connects and closes says nothing; a header cut short is logged.
                if !partial.isEmpty { protocolFailure = .proxyHeader(.truncated) }
                return .endOfStream
            }
            if let tls, tls.isHandshaking {
                tls.receiveEndOfStream()
                if sawInput { protocolFailure = .tls(.closedDuringHandshake) }
            }
            return .endOfStream
        }
        let received = UnsafeRawBufferPointer(rebasing: scratch[0..<count])
        guard var header = proxyHeaderBytes else { return consume(received, count: count, mismatchReply: mismatchReply) }
        header.append(contentsOf: received)
        switch ProxyHeader.parse(header) {
        case .needMore:
            proxyHeaderBytes = header
            return .received(count: count)
        case .invalid(let error):
            proxyHeaderBytes = nil
            return fail(.proxyHeader(error))
        case .header(let parsed, let length):
            proxyHeaderBytes = nil
            receivedProxyHeader = parsed
            guard length < header.count else { return .received(count: count) }
            let rest = Array(header[length...])
            return rest.withUnsafeBytes { consume($0, count: count, mismatchReply: mismatchReply) }
        }
    }

    /// Hands bytes of the relayed stream to TLS or, in plaintext, to the framer.
    private func consume(_ received: UnsafeRawBufferPointer, count: Int, mismatchReply: [UInt8]) -> SocketRead {
        defer { sawInput = true }
        guard let tls else {
            // A ClientHello (a TLS handshake record, 0x16) never starts a JSON line.
            if !sawInput, received.first == 0x16 {
                _ = mismatchReply.withUnsafeBytes { Socket.send(id.fd, $0) }
                return fail(.tls(.tlsClientOnPlaintextPort))
            }
            framer.append(received)
            return .received(count: count)
        }
        tls.advance(receiving: received) { framer.append($0) }
        switch tls.state {
        case .failed(.plaintextClient):
            _ = mismatchReply.withUnsafeBytes { Socket.send(id.fd, $0) }
            return fail(.tls(.plaintextClient))
        case .failed(let error): return fail(.tls(error))
        case .finished: return .endOfStream
        case .handshaking, .established: return .received(count: count)
        }
    }

    /// Writes some of the pending output: plaintext directly, or encrypted first.
    func writeSocket() -> SocketWrite {
        guard let tls else {
            let result = Self.send(id.fd) { fd in
                output.withUnsafeBytes { Socket.send(fd, UnsafeRawBufferPointer(rebasing: $0[outputOffset...])) }
            }
            if case .sent(let count) = result { outputOffset += count }
            return result.write
        }
        while tls.pendingCiphertext < Self.ciphertextQueueLimit, outputOffset < output.count {
            let consumed = output.withUnsafeBytes { tls.encrypt(UnsafeRawBufferPointer(rebasing: $0[outputOffset...])) }
            guard consumed > 0 else { break }
            outputOffset += consumed
        }
        if case .failed(let error) = tls.state {
            _ = fail(.tls(error))
            return .failed
        }
        guard tls.pendingCiphertext > 0 else { return .nothingToSend }
        let result = Self.send(id.fd) { fd in tls.withPendingCiphertext { Socket.send(fd, $0) } }
        if case .sent(let count) = result { tls.consumeCiphertext(count) }
        return result.write
    }

    /// One non-blocking `send` through SystemKit: the bytes it took, or what to do next.
    private enum SendResult {
        case sent(Int), other(SocketWrite)

        var write: SocketWrite {
            switch self {
            case .sent: .sent
            case .other(let write): write
            }
        }
    }

    private static func send(_ fd: Int32, _ body: (Int32) -> Int) -> SendResult {
        do throws(SystemCallError) {
            switch try syscall(blocking: false, where: "send", { body(fd) }) {
            case .processed(let count) where count > 0: return .sent(count)
            case .processed, .wouldBlock: return .other(.wouldBlock)
            }
        } catch {
            return .other(.failed)
        }
    }

    /// Gives a quiet TLS session's OpenSSL record buffers back (``TLSSession/releaseRecordBuffers()``), called
    /// by the loop's sweep for a connection with nothing in flight and no traffic for a sweep interval.
    /// - Returns: whether buffers were given back now (never for plaintext).
    func releaseQuietTLSBuffers() -> Bool {
        tls?.releaseRecordBuffers() ?? false
    }

    /// Queues TLS `close_notify` before the write side is shut down.
    /// - Returns: whether there is now something more to send.
    func queueTLSClose() -> Bool {
        tls?.close() ?? false
    }

    private func fail(_ error: ConnectionFailure) -> SocketRead {
        protocolFailure = error
        return .failed
    }
}
