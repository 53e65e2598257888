import CEpoll
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// The epoll reactor behind ``LineServer``: one thread, non-blocking sockets, no thread per connection.
///
/// Connections are registered edge-triggered (`EPOLLET`) once, for input and output, and never modified:
/// the loop remembers unconsumed readiness in ``LoopConnection/readable`` and `writable`. Pausing a
/// connection (a request in flight, or output above the high-water mark) is then just "do not read now",
/// with no `epoll_ctl` call per request; resuming reads again if readiness was left over. The listening
/// socket and the mailbox's eventfd are level-triggered: a burst of connects is accepted 64 at a time
/// without starving established connections, and nothing is lost if the loop stops early.
///
/// - Important: Everything here runs on the loop thread only (``run()`` marks it; the entry points check it with
///   ``LoopThread/assertCurrent(file:line:)`` in debug builds). Other threads talk to it through ``LoopMailbox``.
final class EventLoop {
    private static let listenerToken = UInt64.max
    private static let mailboxToken = UInt64.max - 1
    private static let scratchSize = 64 * 1024
    /// Reads of `scratchSize` per connection per turn before others get a chance.
    private static let readBudget = 16
    /// Refused connections kept draining at once; beyond that they are closed at once.
    private static let maximumRefusedDraining = 256

    private let configuration: LineServerConfiguration
    private let epollFD: Int32
    private let listener: ListeningSocket
    private let mailbox: LoopMailbox
    private let makeSession: @Sendable (ConnectionHandle) -> any LineSession
    private let log: @Sendable (String) -> Void
    private let counter: ConnectionCounter

    private var connections: [LoopConnection?] = []
    private var activeCount = 0
    private var refusedCount = 0
    private var nextGeneration: UInt32 = 0
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: scratchSize, alignment: 16)
    private var spareFD: Int32
    private var stopping = false
    private var stopDeadline: UInt64 = 0
    /// Connections that used their read budget and still have input to read.
    private var again: [LoopConnection] = []
    /// Connections whose answers are written at the end of this turn of the loop, once every ready connection's
    /// input was read and answered (as Redis writes its replies before it sleeps): a peer waiting on several
    /// connections is woken by a burst of writes rather than one write between each read. That order alone, with
    /// no fewer instructions or system calls, took pipelined pings from 1.47M to 1.76M a second (medians).
    private var unwritten: [LoopConnection] = []
    private let sweepInterval: UInt64
    private var nextSweep: UInt64 = 0

    init(configuration: LineServerConfiguration, epollFD: Int32, listener: ListeningSocket, mailbox: LoopMailbox,
         counter: ConnectionCounter, log: @escaping @Sendable (String) -> Void,
         makeSession: @escaping @Sendable (ConnectionHandle) -> any LineSession) {
        self.configuration = configuration
        self.epollFD = epollFD
        self.listener = listener
        self.mailbox = mailbox
        self.counter = counter
        self.log = log
        self.makeSession = makeSession
        self.sweepInterval = configuration.sweepInterval.nanoseconds
        self.spareFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    deinit {
        scratch.deallocate()
        if spareFD >= 0 { Glibc.close(spareFD) }
    }

    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// Runs until stopped and every connection is closed (or the shutdown grace has passed), on the calling thread,
    /// which is the loop thread from now until it returns.
    func run() {
        LoopThread.running(runLoop)
    }

    private func runLoop() {
        _ = cepoll_ctl(epollFD, EPOLL_CTL_ADD, listener.fileDescriptor, EPOLLIN.rawValue, Self.listenerToken)
        _ = cepoll_ctl(epollFD, EPOLL_CTL_ADD, mailbox.eventFD, EPOLLIN.rawValue, Self.mailboxToken)
        var events = [UInt32](repeating: 0, count: 256)
        var datas = [UInt64](repeating: 0, count: 256)
        nextSweep = Self.now() &+ sweepInterval
        while true {
            let timeout: Int32 = again.isEmpty ? Int32(clamping: sweepInterval / 1_000_000) : 0
            let count: Int32
            do throws(SystemCallError) {
                count = try syscall(where: "epoll_wait") { cepoll_wait(epollFD, &events, &datas, 256, max(timeout, 1)) }
            } catch {
                log("epoll_wait failed: \(TransportError.errnoText(error.errno)); stopping")
                break
            }
            for index in 0..<Int(count) {
                handle(event: events[index], data: datas[index])
            }
            if !again.isEmpty {
                let pending = again
                again.removeAll(keepingCapacity: true)
                for connection in pending where !connection.isClosed { service(connection) }
            }
            writeAnswers()
            let now = Self.now()
            if now >= nextSweep {
                sweep(now: now)
                nextSweep = now &+ sweepInterval
            }
            if stopping, activeCount + refusedCount == 0 || now >= stopDeadline { break }
        }
        for case let connection? in connections { close(connection) }
        Glibc.close(epollFD)
    }

    // MARK: Events

    private func handle(event: UInt32, data: UInt64) {
        LoopThread.assertCurrent()
        switch data {
        case Self.listenerToken: acceptConnections()
        case Self.mailboxToken: handleMailbox()
        default:
            guard let connection = lookup(ConnectionID(epollData: data)) else { return }
            if event & EPOLLERR.rawValue != 0 {
                close(connection)
                return
            }
            if event & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLRDHUP.rawValue) != 0 { connection.readable = true }
            if event & (EPOLLHUP.rawValue | EPOLLRDHUP.rawValue) != 0 { connection.hangupSeen = true }
            if event & EPOLLOUT.rawValue != 0 { connection.writable = true }
            service(connection)
        }
    }

    private func lookup(_ id: ConnectionID) -> LoopConnection? {
        let index = Int(id.fd)
        guard index >= 0, index < connections.count, let connection = connections[index],
              connection.id.generation == id.generation else { return nil }
        return connection
    }

    private func handleMailbox() {
        LoopThread.assertCurrent()
        let (messages, stop) = mailbox.take()
        for message in messages {
            guard let connection = lookup(message.target) else { continue }
            switch message.kind {
            case .complete(let bytes, let after): complete(connection, with: bytes, after: after)
            case .completeEncoding(let encode, let after): complete(connection, with: encode(), after: after)
            case .send(let bytes):
                guard case .open = connection.phase else { continue }
                connection.enqueue(bytes)
                if checkOutputLimit(connection) { flush(connection) }
            case .close:
                if case .open = connection.phase { connection.phase = .closing }
                service(connection)
            }
        }
        if stop, !stopping { beginStop() }
    }

    /// Writes the answer of the connection's request in flight, acts on `after`, and goes on with its input.
    private func complete(_ connection: LoopConnection, with bytes: [UInt8], after: AfterReply) {
        connection.inFlight = false
        connection.lastActivity = Self.now()
        connection.enqueue(bytes)
        apply(after, to: connection)
        if !checkOutputLimit(connection) { return }
        service(connection)
    }

    // MARK: Reading, answering, writing

    private func service(_ connection: LoopConnection) {
        if connection.isDraining {
            drainInput(connection)
        } else {
            pump(connection)
        }
    }

    /// Answers buffered lines and reads more input while the connection may proceed; the answers are written at
    /// the end of the turn (``writeAnswers()``).
    private func pump(_ connection: LoopConnection) {
        var budget = Self.readBudget
        while true {
            processLines(connection)
            if connection.isClosed { return }
            guard case .open = connection.phase, !stopping else { break }
            if connection.pendingOutput > configuration.outputHighWater { break }
            if connection.inFlight, connection.framer.bufferedByteCount >= configuration.inputReadAhead { break }
            guard connection.readable, !connection.peerClosed else { break }
            guard budget > 0 else {
                again.append(connection)
                break
            }
            budget -= 1
            let read = connection.readSocket(into: scratch, mismatchReply: connection.tls == nil ? configuration.protocolMismatchReply
                                                                                       : configuration.plaintextClientReply)
            if let header = connection.receivedProxyHeader {
                connection.receivedProxyHeader = nil
                openSession(connection, behind: header)
            }
            switch read {
            case .received(let count):
                connection.lastActivity = Self.now()
                // A short read emptied the socket's queue; new data will raise a new edge. Not so for the end
                // of stream: its edge may have come with this data, so read on until `read` returns 0.
                if count < Self.scratchSize, !connection.hangupSeen { connection.readable = false }
            case .endOfStream:
                connection.peerClosed = true
                connection.readable = false
            case .wouldBlock:
                connection.readable = false
            case .failed:
                close(connection)
                return
            }
        }
        if !connection.answersQueued {
            connection.answersQueued = true
            unwritten.append(connection)
        }
    }

    /// Writes what the connections pumped in this turn have to send, each once, in the order they were pumped.
    /// (Writing never pumps, so the list does not grow meanwhile.)
    private func writeAnswers() {
        let count = unwritten.count
        guard count > 0 else { return }
        for index in 0..<count {
            let connection = unwritten[index]
            connection.answersQueued = false
            if !connection.isClosed { writeAnswers(connection) }
        }
        unwritten.removeAll(keepingCapacity: true)
    }

    /// The end of a ``pump(_:)``: writes the connection's answers, and closes it if its peer half-closed and all is
    /// answered.
    private func writeAnswers(_ connection: LoopConnection) {
        flush(connection)
        if connection.isClosed { return }
        // A peer that half-closed gets its answers, then the connection closes (an unterminated tail is dropped).
        if connection.peerClosed, case .open = connection.phase, !connection.inFlight, connection.pendingOutput == 0 {
            close(connection)
        }
    }

    /// Makes the session of a listed proxy's connection once its PROXY header is read: for the client it relayed
    /// (its address in the handle, so the session's throttle keys and log lines see it), or for the proxy itself
    /// on a LOCAL or UNKNOWN header.
    private func openSession(_ connection: LoopConnection, behind header: ProxyHeader) {
        LoopThread.assertCurrent()
        let proxy = connection.handle.peerHost
        if case .relayed(let source, _) = header {
            connection.handle = ConnectionHandle(id: connection.id, mailbox: mailbox, peerHost: source.host, proxyHost: proxy)
        }
        connection.session = makeSession(connection.handle)
    }

    private func processLines(_ connection: LoopConnection) {
        guard let session = connection.session else { return }
        while case .open = connection.phase, !connection.inFlight, !stopping {
            guard let next = connection.framer.nextLine() else { return }
            switch next {
            case .tooLong:
                log("\(connection.handle.logName): line longer than \(configuration.maximumLineLength) bytes; closing")
                connection.enqueue(session.lineTooLong())
                connection.phase = .closing
                return
            case .line(let line):
                switch connection.appendingOutput({ session.received(line: line, appendingTo: &$0) }) {
                case .reply(let bytes, let after):
                    connection.enqueue(bytes)
                    apply(after, to: connection)
                case .pending:
                    connection.inFlight = true
                }
            }
            if !checkOutputLimit(connection) { return }
        }
    }

    private func apply(_ after: AfterReply, to connection: LoopConnection) {
        switch after {
        case .proceed: break
        case .establish: connection.established = true
        case .close: if case .open = connection.phase { connection.phase = .closing }
        }
    }

    /// Closes a connection whose unread output passed the limit. Returns whether it is still open.
    private func checkOutputLimit(_ connection: LoopConnection) -> Bool {
        guard connection.pendingOutput > configuration.outputLimit else { return true }
        log("\(connection.handle.logName): more than \(configuration.outputLimit) bytes of answers unread; closing")
        close(connection)
        return false
    }

    private func flush(_ connection: LoopConnection) {
        writing: while connection.pendingOutput > 0, connection.writable {
            switch connection.writeSocket() {
            case .sent: continue
            case .wouldBlock: connection.writable = false
            case .nothingToSend: break writing
            case .failed:
                close(connection)
                return
            }
        }
        guard connection.pendingOutput == 0 else { return }
        connection.outputDrained()
        if case .closing = connection.phase, !connection.inFlight {
            // Over TLS the last answer is followed by close_notify, so the peer reads a clean end of stream.
            if connection.queueTLSClose() {
                flush(connection)
                return
            }
            if stopping { close(connection) } else { startDraining(connection, for: configuration.drainTimeout) }
        }
    }

    /// Shuts down the write side (the peer sees EOF after our last answer) and discards input until the
    /// peer closes or the deadline passes, so unread input does not turn our close into a reset that
    /// destroys the answer in flight.
    private func startDraining(_ connection: LoopConnection, for duration: Duration) {
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

    private func drainInput(_ connection: LoopConnection) {
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

    // MARK: Accepting

    private func acceptConnections() {
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
                    log("accept failed: \(TransportError.errnoText(error.errno))")
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
                log("\(handle.logName): \(error); closing")
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
        log("\(handle.logName): refused, \(configuration.maximumConnections) connections open (busy)")
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
        log("accept: out of file descriptors; refusing a connection")
        guard spareFD >= 0 else { return }
        Glibc.close(spareFD)
        let fd = cepoll_accept(listener.fileDescriptor)
        if fd >= 0 {
            _ = configuration.busyMessage.withUnsafeBytes { Socket.send(fd, $0) }
            Glibc.close(fd)
        }
        spareFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    // MARK: Timeouts, closing, stopping

    private func sweep(now: UInt64) {
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
                        log("\(connection.handle.logName): no complete PROXY protocol header within \(configuration.handshakeTimeout); closing")
                    } else if connection.tls?.isHandshaking == true {
                        counter.handshakeFailed()
                        log("\(connection.handle.logName): TLS handshake not finished within \(configuration.handshakeTimeout); closing")
                    } else {
                        log("\(connection.handle.logName): no hello within \(configuration.handshakeTimeout); closing")
                    }
                    close(connection)
                } else if let idle, connection.established, now &- connection.lastActivity >= idle {
                    log("\(connection.handle.logName): idle for \(configuration.idleTimeout ?? .zero); closing")
                    close(connection)
                } else if now &- connection.lastActivity >= sweepInterval, connection.releaseQuietTLSBuffers() {
                    releasedTLSBuffers += 1
                }
            }
        }
    }

    /// After a sweep gave back the record buffers of at least this many quiet TLS sessions, the freed heap is
    /// returned to the system (`malloc_trim`): a burst of connections that then go idle (the 5,000 idle TLS
    /// connections of docs/benchmarks.md) would otherwise leave their buffers' pages resident as free heap.
    static let trimAfterReleasedTLSBuffers = 64

    private static func returnFreedTLSBuffers(_ released: Int) {
        if released >= trimAfterReleasedTLSBuffers { _ = malloc_trim(0) }
    }

    private func beginStop() {
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

    private func close(_ connection: LoopConnection) {
        guard !connection.isClosed else { return }
        connection.isClosed = true
        if let failure = connection.protocolFailure {
            // OpenSSL's reason or our own classification: never the peer's bytes.
            counter.handshakeFailed()
            log("\(connection.handle.logName): \(failure.description) (\(failure.code)); closing")
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
