import CEpoll
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// Accepting: new connections registered (or refused beyond the maximum, with a spare descriptor kept for
/// when descriptors run out), and those from a listed proxy made to read its PROXY header first.
extension EventLoop {
    func acceptConnections() {
        for _ in 0..<64 {
            let fd: Int32
            do throws(SystemCallError) {
                guard case .processed(let accepted) = try syscall(blocking: false, where: "accept4", { cepoll_accept(listener.fileDescriptor) })
                else { return }
                fd = accepted
            } catch {
                switch error.errno {
                case ECONNABORTED, EPROTO: continue
                case EMFILE, ENFILE:
                    shedWithSpareDescriptor()
                    return
                default:
                    log(.error, "accept failed: \(TransportError.errnoText(error.errno))")
                    return
                }
            }
            nextGeneration &+= 1
            let peerHost = ResolvedAddress.of(socket: fd, peer: true)?.socketAddress.host ?? "?"
            let handle = ConnectionHandle(id: ConnectionID(fd: fd, generation: nextGeneration), mailbox: mailbox, peerHost: peerHost)
            if activeCount >= configuration.maximumConnections || stopping {
                refuse(fd: fd, handle: handle)
                continue
            }
            Socket.setNoDelay(fd)
            let tls: TLSSession?
            do { tls = try configuration.tls?.makeSession() } catch {
                log(.info, "\(handle.logName): \(error); closing")
                Glibc.close(fd)
                continue
            }
            // From a listed proxy the PROXY header comes first; the session waits for the client's address in it.
            let expectsProxyHeader = isListedProxy(peerHost)
            let connection = LoopConnection(handle: handle, session: expectsProxyHeader ? nil : makeSession(handle), counted: true,
                                            maximumLineLength: configuration.maximumLineLength, now: Self.now(), tls: tls,
                                            expectsProxyHeader: expectsProxyHeader)
            register(connection)
            activeCount += 1
            counter.set(activeCount)
            service(connection)
        }
    }

    /// Whether `host` (the socket's peer) is in `proxyProtocolSources`, so its connections start with a PROXY header.
    private func isListedProxy(_ host: String) -> Bool {
        guard !configuration.proxyProtocolSources.isEmpty, let address = IPAddress(parsing: host) else { return false }
        return configuration.proxyProtocolSources.contains { $0.contains(address) }
    }

    private func register(_ connection: LoopConnection) {
        let index = Int(connection.id.fd)
        if index >= connections.count {
            connections.append(contentsOf: repeatElement(nil, count: max(index + 1 - connections.count, connections.count)))
        }
        connections[index] = connection
        let interest = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
        _ = cepoll_ctl(epollFD, EPOLL_CTL_ADD, connection.id.fd, interest, connection.id.epollData)
    }

    /// Sends the busy message to a connection beyond the maximum and closes it (after a short drain while
    /// few are draining, at once otherwise, so refusals can never exhaust descriptors).
    private func refuse(fd: Int32, handle: ConnectionHandle) {
        log(.warning, "\(handle.logName): refused, \(configuration.maximumConnections) connections open (busy)")
        // On a TLS port the plaintext busy line would be garbage to the client's handshake: it just sees the close.
        if configuration.tls == nil { _ = configuration.busyMessage.withUnsafeBytes { Socket.send(fd, $0) } }
        guard refusedCount < Self.maximumRefusedDraining else {
            Glibc.close(fd)
            return
        }
        let connection = LoopConnection(handle: handle, session: nil, counted: false,
                                        maximumLineLength: configuration.maximumLineLength, now: Self.now())
        register(connection)
        refusedCount += 1
        startDraining(connection, for: .milliseconds(200))
    }

    /// Out of descriptors: free the spare one, accept and refuse one connection with it, take it back. Without
    /// this a level-triggered listener would report the same pending connection forever.
    private func shedWithSpareDescriptor() {
        log(.warning, "accept: out of file descriptors; refusing a connection")
        guard spareFD >= 0 else { return }
        Glibc.close(spareFD)
        let fd = cepoll_accept(listener.fileDescriptor)
        if fd >= 0 {
            _ = configuration.busyMessage.withUnsafeBytes { Socket.send(fd, $0) }
            Glibc.close(fd)
        }
        spareFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }
}
