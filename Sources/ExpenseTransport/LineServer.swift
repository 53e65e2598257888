import CEpoll
import FoundationEssentials
import Synchronization
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// A TCP server of newline-delimited messages, on one epoll thread.
///
/// It accepts connections, frames their input into lines, hands each line to the connection's
/// ``LineSession`` and writes the answers back in order, with the limits of ``LineServerConfiguration``
/// (maximum line, connections, output backlog, handshake and idle timeouts). It knows nothing of JSON-RPC.
///
/// An idle connection costs a small object and a descriptor, no thread: the whole server runs on one
/// thread of its own (outside Swift's cooperative pool, which has only as many threads as cores), and
/// sessions hand slow work to tasks that answer through ``ConnectionHandle``.
public final class LineServer: Sendable {
    /// The address bound, with the real port when port 0 was asked for.
    public let address: SocketAddress
    private let configuration: LineServerConfiguration
    private let listener: ListeningSocket
    private let mailbox: LoopMailbox
    private let epollFD: Int32
    private let log: @Sendable (LogLevel, String) -> Void
    private let makeSession: @Sendable (ConnectionHandle) -> any LineSession
    private let counter = ConnectionCounter()
    private let lifecycle = Mutex(Lifecycle())

    /// Bound → serving → stopped, or bound → stopped by a stop before the start (the daemon's stop signal can
    /// come while it opens its data directory); nothing leaves `stopped`, so no stop closes twice and no start
    /// serves a closed socket.
    private struct Lifecycle {
        enum Phase { case bound, serving, stopped }
        var phase = Phase.bound
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Binds `address` and prepares the loop; call ``start()`` to accept connections.
    /// - Parameters:
    ///   - log: receives one line per notable event (refusals, timeouts, limits), never message contents.
    ///   - makeSession: creates the session of each new connection (on the loop thread).
    /// - Throws: ``TransportError`` when binding fails.
    public init(address: SocketAddress, configuration: LineServerConfiguration,
                log: @escaping @Sendable (LogLevel, String) -> Void,
                makeSession: @escaping @Sendable (ConnectionHandle) -> any LineSession) throws(TransportError) {
        let listener = try ListeningSocket(address: address)
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else {
            listener.close()
            throw .lastError("epoll_create1")
        }
        let mailbox: LoopMailbox
        do {
            mailbox = try LoopMailbox()
        } catch {
            listener.close()
            Glibc.close(epollFD)
            throw error
        }
        self.listener = listener
        self.epollFD = epollFD
        self.mailbox = mailbox
        self.address = listener.boundAddress
        self.configuration = configuration
        self.log = log
        self.makeSession = makeSession
    }

    /// Connections currently open (refused ones excluded).
    public var connectionCount: Int { counter.value }

    /// The certificate and key of a TLS port (``TLSServerIdentity/reload()`` swaps them while serving).
    public var tlsIdentity: TLSServerIdentity? { configuration.tls }

    /// Connections closed for their protocol: failed or timed-out TLS handshakes, plaintext on a TLS port, TLS on a
    /// plaintext port, a listed proxy's missing, malformed, cut or late PROXY header.
    public var failedHandshakeCount: Int { counter.failedHandshakes }

    /// Starts the loop thread. Connections queued since ``init`` are accepted from now on.
    /// Does nothing after a ``stop()``.
    public func start() {
        let first = lifecycle.withLock { state -> Bool in
            guard state.phase == .bound else { return false }
            state.phase = .serving
            return true
        }
        guard first else { return }
        let loop = LoopParts(configuration: configuration, epollFD: epollFD, listener: listener, mailbox: mailbox,
                             counter: counter, log: log, makeSession: makeSession)
        do {
            try SystemThread.start(name: "expensed-loop", stackSize: 1 << 20) { [self] in
                loop.makeLoop().run()
                finished()
            }
        } catch {
            log(.error, "cannot start the loop thread: \(error); serving nothing")
            listener.close()
            Glibc.close(epollFD)
            finished()
        }
    }

    /// Stops accepting, lets in-flight requests finish (up to the shutdown grace), closes every connection.
    /// Returns at once; await ``waitUntilStopped()``.
    /// Safe to call more than once, and before ``start()``.
    public func stop() {
        let phase = lifecycle.withLock { state -> Lifecycle.Phase in
            let phase = state.phase
            if phase == .bound { state.phase = .stopped }
            return phase
        }
        switch phase {
        case .bound:
            listener.close()
            Glibc.close(epollFD)
            finished()
        case .serving: mailbox.requestStop()
        case .stopped: break
        }
    }

    /// Returns once the loop has closed every connection and exited.
    public func waitUntilStopped() async {
        await withCheckedContinuation { continuation in
            let done = lifecycle.withLock { state -> Bool in
                if state.phase == .stopped { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    private func finished() {
        let waiters = lifecycle.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.phase = .stopped
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// What the loop thread needs, gathered so the thread closure captures one `Sendable` value.
private struct LoopParts: Sendable {
    var configuration: LineServerConfiguration
    var epollFD: Int32
    var listener: ListeningSocket
    var mailbox: LoopMailbox
    var counter: ConnectionCounter
    var log: @Sendable (LogLevel, String) -> Void
    var makeSession: @Sendable (ConnectionHandle) -> any LineSession

    func makeLoop() -> EventLoop {
        EventLoop(configuration: configuration, epollFD: epollFD, listener: listener, mailbox: mailbox,
                  counter: counter, log: log, makeSession: makeSession)
    }
}

/// The number of open connections, written by the loop and readable from anywhere.
final class ConnectionCounter: Sendable {
    private let count = Atomic<Int>(0)
    private let failures = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func set(_ value: Int) { count.store(value, ordering: .relaxed) }
    var failedHandshakes: Int { failures.load(ordering: .relaxed) }
    func handshakeFailed() { failures.add(1, ordering: .relaxed) }
}
