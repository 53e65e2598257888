#if canImport(Glibc)
import Glibc
#endif

/// TLS for the blocking client: the same ``TLSSession`` as the server loop, driven by blocking
/// `send` and `poll`+`read`.
extension LineConnection {
    /// Runs the client handshake until it is established, fails, or `deadline` passes.
    func startTLS(_ configuration: TLSClientConfiguration, deadline: ContinuousClock.Instant) throws(TransportError) {
        let session: TLSSession
        do {
            session = try TLSSession(context: TLSContext.client(configuration.verification),
                                     serverName: configuration.serverName ?? address.host)
        } catch {
            throw .tls(error)
        }
        tls = session
        while true {
            session.advance { framer.append($0) }
            try sendPendingCiphertext()
            switch session.state {
            case .established: return
            case .failed(let error): throw .tls(error)
            case .finished: throw .tls(.closedDuringHandshake)
            case .handshaking: break
            }
            guard try Self.waitFor(fd, events: Int16(POLLIN), timeout: ContinuousClock.now.duration(to: deadline)) else {
                throw .timedOut
            }
            let count: Int?
            do {
                count = try readSome()
            } catch .connectionClosed {
                count = 0  // a reset mid-handshake: the session reports it as closed
            }
            switch count {
            case nil: continue
            case 0?: session.receiveEndOfStream()
            case let received?:
                readBuffer.withUnsafeBytes { session.advance(receiving: UnsafeRawBufferPointer(rebasing: $0[0..<received])) { framer.append($0) } }
            }
        }
    }

    /// Encrypts and sends `plaintext`.
    func writeEncrypted(_ plaintext: [UInt8]) throws(TransportError) {
        guard let tls else { return }
        var offset = 0
        while offset < plaintext.count {
            let consumed = plaintext.withUnsafeBytes { tls.encrypt(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            if case .failed(let error) = tls.state { throw .tls(error) }
            guard consumed > 0 else { throw .connectionClosed }
            offset += consumed
            try sendPendingCiphertext()
        }
    }

    /// Decrypts the `count` bytes just read into ``readBuffer``.
    /// - Returns: `false` when the server ended the session (`close_notify`).
    func receiveEncrypted(_ count: Int) throws(TransportError) -> Bool {
        guard let tls else { return true }
        readBuffer.withUnsafeBytes { tls.advance(receiving: UnsafeRawBufferPointer(rebasing: $0[0..<count])) { framer.append($0) } }
        try sendPendingCiphertext()
        switch tls.state {
        case .failed(let error): throw .tls(error)
        case .finished: return framer.bufferedByteCount > 0 || true
        case .established, .handshaking: return true
        }
    }

    /// Sends what the TLS session has queued (handshake messages, records, alerts).
    func sendPendingCiphertext() throws(TransportError) {
        guard let tls, tls.pendingCiphertext > 0 else { return }
        let bytes = tls.withPendingCiphertext { Array($0) }
        tls.consumeCiphertext(bytes.count)
        try sendAll(bytes)
    }
}
