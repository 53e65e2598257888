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
    // The state below and the methods the EventLoop+*.swift extensions share are internal, not private, only so
    // those files reach them; nothing outside the loop's own files touches them.
    static let scratchSize = 64 * 1024
    /// Reads of `scratchSize` per connection per turn before others get a chance.
    static let readBudget = 16
    /// Refused connections kept draining at once; beyond that they are closed at once.
    static let maximumRefusedDraining = 256

    let configuration: LineServerConfiguration
    let epollFD: Int32
    let listener: ListeningSocket
    let mailbox: LoopMailbox
    let makeSession: @Sendable (ConnectionHandle) -> any LineSession
    let log: @Sendable (LogLevel, String) -> Void
    let counter: ConnectionCounter

    // The loop's lists are used on the loop thread only and never while another access to them is open (a list is
    // copied before its connections are served): they go without the run-time exclusivity check, which cost
    // instructions on every request (see LoopConnection's buffers).
    @exclusivity(unchecked) var connections: [LoopConnection?] = []
    var activeCount = 0
    var refusedCount = 0
    var nextGeneration: UInt32 = 0
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: scratchSize, alignment: 16)
    var spareFD: Int32
    var stopping = false
    var stopDeadline: UInt64 = 0
    /// Connections that used their read budget and still have input to read.
    @exclusivity(unchecked) var again: [LoopConnection] = []
    /// Connections whose answers are written at the end of this turn of the loop, once every ready connection's
    /// input was read and answered (as Redis writes its replies before it sleeps): a peer waiting on several
    /// connections is woken by a burst of writes rather than one write between each read. That order alone, with
    /// no fewer instructions or system calls, took pipelined pings from 1.47M to 1.76M a second (medians).
    @exclusivity(unchecked) var unwritten: [LoopConnection] = []
    let sweepInterval: UInt64
    private var nextSweep: UInt64 = 0

    init(configuration: LineServerConfiguration, epollFD: Int32, listener: ListeningSocket, mailbox: LoopMailbox,
         counter: ConnectionCounter, log: @escaping @Sendable (LogLevel, String) -> Void,
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
                log(.error, "epoll_wait failed: \(TransportError.errnoText(error.errno)); stopping")
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

    func lookup(_ id: ConnectionID) -> LoopConnection? {
        let index = Int(id.fd)
        guard index >= 0, index < connections.count, let connection = connections[index],
              connection.id.generation == id.generation else { return nil }
        return connection
    }
}
