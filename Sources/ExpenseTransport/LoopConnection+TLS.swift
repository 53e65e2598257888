#if canImport(Glibc)
import Glibc
#endif

/// The socket side of a loop connection: plaintext straight between the socket and the framer/output queue, or
/// through its ``TLSSession``. The loop's framing, limits, backpressure and timeouts see plaintext either way.
extension LoopConnection {
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

    /// Reads once from the socket; the plaintext goes to the framer.
    /// - Parameter mismatchReply: sent (best effort) to a TLS client on a plaintext port before it is closed.
    /// - Returns: as `read(2)`: bytes taken from the socket, 0 at the end of the stream (or TLS `close_notify`),
    ///   -1 with `errno` set (`EPROTO` for a protocol failure, recorded in ``protocolFailure``).
    func readSocket(into scratch: UnsafeMutableRawBufferPointer, mismatchReply: [UInt8]) -> Int {
        let count = read(id.fd, scratch.baseAddress, scratch.count)
        guard count > 0 else {
            if count == 0, let tls, tls.isHandshaking {
                tls.receiveEndOfStream()
                if sawInput { protocolFailure = .closedDuringHandshake }
            }
            return count
        }
        let received = UnsafeRawBufferPointer(rebasing: scratch[0..<count])
        defer { sawInput = true }
        guard let tls else {
            // A ClientHello (a TLS handshake record, 0x16) never starts a JSON line.
            if !sawInput, received.first == 0x16 {
                _ = mismatchReply.withUnsafeBytes { Socket.send(id.fd, $0) }
                return fail(.tlsClientOnPlaintextPort)
            }
            framer.append(received)
            return count
        }
        tls.receive(received)
        tls.advance { framer.append($0) }
        switch tls.state {
        case .failed(let error): return fail(error)
        case .finished: return 0
        case .handshaking, .established: return count
        }
    }

    /// Writes some of the pending output: plaintext directly, or encrypted first.
    func writeSocket() -> SocketWrite {
        guard let tls else {
            let sent = output.withUnsafeBytes { Socket.send(id.fd, UnsafeRawBufferPointer(rebasing: $0[outputOffset...])) }
            if sent > 0 {
                outputOffset += sent
                return .sent
            }
            return Self.classify()
        }
        while tls.pendingCiphertext < Self.ciphertextQueueLimit, outputOffset < output.count {
            let consumed = output.withUnsafeBytes { tls.encrypt(UnsafeRawBufferPointer(rebasing: $0[outputOffset...])) }
            guard consumed > 0 else { break }
            outputOffset += consumed
        }
        if case .failed(let error) = tls.state {
            _ = fail(error)
            return .failed
        }
        guard tls.pendingCiphertext > 0 else { return .nothingToSend }
        let sent = tls.withPendingCiphertext { Socket.send(id.fd, $0) }
        if sent > 0 {
            tls.consumeCiphertext(sent)
            return .sent
        }
        return Self.classify()
    }

    /// Queues TLS `close_notify` before the write side is shut down.
    /// - Returns: whether there is now something more to send.
    func queueTLSClose() -> Bool {
        tls?.close() ?? false
    }

    private func fail(_ error: TLSError) -> Int {
        protocolFailure = error
        errno = EPROTO
        return -1
    }

    private static func classify() -> SocketWrite {
        switch errno {
        case EAGAIN, EWOULDBLOCK, EINTR: errno == EINTR ? .sent : .wouldBlock
        default: .failed
        }
    }
}
