import CEpoll
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// Draining, timeouts, closing, stopping: a connection that is done discards input until its peer closes, the
/// periodic sweep closes those past a deadline, and a stop closes the listener and lets answers in flight finish.
extension EventLoop {
    /// Shuts down the write side (the peer sees EOF after our last answer) and discards input until the
    /// peer closes or the deadline passes, so unread input does not turn our close into a reset that
    /// destroys the answer in flight.
    func startDraining(_ connection: LoopConnection, for duration: Duration) {
        shutdown(connection.id.fd, Int32(SHUT_WR))
        connection.phase = .draining(deadline: Self.now() &+ duration.nanoseconds)
        connection.framer.reset()
        connection.readable = true
        drainInput(connection)
    }

    /// One read of up to `scratchSize` bytes into `scratch`; `nil` when it failed and the connection was closed.
    private func readInput(_ connection: LoopConnection) -> IOResult<Int>? {
        do throws(SystemCallError) {
            return try syscall(blocking: false, where: "read") { read(connection.id.fd, scratch.baseAddress, Self.scratchSize) }
        } catch {
            close(connection)
            return nil
        }
    }

    func drainInput(_ connection: LoopConnection) {
        var budget = Self.readBudget
        while connection.readable, budget > 0 {
            budget -= 1
            guard let result = readInput(connection) else { return }
            switch result {
            case .processed(0):
                close(connection)
                return
            case .processed: break
            case .wouldBlock: connection.readable = false
            }
        }
        if connection.readable { again.append(connection) }
    }

    func sweep(now: UInt64) {
        let handshake = configuration.handshakeTimeout.nanoseconds
        let idle = configuration.idleTimeout?.nanoseconds
        var releasedTLSBuffers = 0
        defer { Self.returnFreedTLSBuffers(releasedTLSBuffers) }
        for case let connection? in connections {
            switch connection.phase {
            case .draining(let deadline):
                if now >= deadline { close(connection) }
            case .open, .closing:
                guard !connection.inFlight else { continue }
                if !connection.established, now &- connection.openedAt >= handshake {
                    if connection.proxyHeaderBytes != nil {
                        counter.handshakeFailed()
                        log(.info, "\(connection.handle.logName): no complete PROXY protocol header within \(configuration.handshakeTimeout); closing")
                    } else if connection.tls?.isHandshaking == true {
                        counter.handshakeFailed()
                        log(.info, "\(connection.handle.logName): TLS handshake not finished within \(configuration.handshakeTimeout); closing")
                    } else {
                        log(.info, "\(connection.handle.logName): no hello within \(configuration.handshakeTimeout); closing")
                    }
                    close(connection)
                } else if let idle, connection.established, now &- connection.lastActivity >= idle {
                    log(.info, "\(connection.handle.logName): idle for \(configuration.idleTimeout ?? .zero); closing")
                    close(connection)
                } else if now &- connection.lastActivity >= sweepInterval, connection.releaseQuietTLSBuffers() {
                    releasedTLSBuffers += 1
                }
            }
        }
    }

    /// After a sweep gave back the record buffers of at least this many quiet TLS sessions, the freed heap is
    /// returned to the system (`malloc_trim`): a burst of connections that then go idle (thousands of TLS clients
    /// that connected and went quiet) would otherwise leave their buffers' pages resident as free heap.
    static let trimAfterReleasedTLSBuffers = 64

    private static func returnFreedTLSBuffers(_ released: Int) {
        if released >= trimAfterReleasedTLSBuffers { _ = malloc_trim(0) }
    }

    func beginStop() {
        stopping = true
        stopDeadline = Self.now() &+ configuration.shutdownGrace.nanoseconds
        _ = cepoll_ctl(epollFD, EPOLL_CTL_DEL, listener.fileDescriptor, 0, 0)
        listener.close()
        for case let connection? in connections {
            if connection.isDraining || (!connection.inFlight && connection.pendingOutput == 0) {
                close(connection)
            } else {
                connection.phase = .closing
            }
        }
    }

    func close(_ connection: LoopConnection) {
        guard !connection.isClosed else { return }
        connection.isClosed = true
        if let failure = connection.protocolFailure {
            // OpenSSL's reason or our own classification: never the peer's bytes.
            counter.handshakeFailed()
            log(.info, "\(connection.handle.logName): \(failure.description) (\(failure.code)); closing")
        }
        connections[Int(connection.id.fd)] = nil
        Glibc.close(connection.id.fd)
        if connection.counted {
            activeCount -= 1
            counter.set(activeCount)
        } else {
            refusedCount -= 1
        }
        connection.session?.closed()
    }
}
