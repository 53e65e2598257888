/// The loop thread's record of one accepted connection. Confined to the loop thread: never shared.
final class LoopConnection {
    enum Phase {
        /// Reading lines and answering them.
        case open
        /// Writing what is queued; then the write side is shut down and the input drained.
        case closing
        /// Write side shut down; input is read and discarded until EOF or the deadline, then closed.
        case draining(deadline: UInt64)
    }

    let id: ConnectionID
    /// Its handle: replaced, with the client's address, once a listed proxy's PROXY header is read.
    var handle: ConnectionHandle
    /// `nil` for a connection refused as busy, which only drains, and for one from a listed proxy until its
    /// PROXY header is read (the session is made for the client's address, not the proxy's).
    var session: (any LineSession)?
    /// Whether the connection counts toward the maximum (refused ones do not).
    let counted: Bool
    let openedAt: UInt64

    // The input and output buffers are touched on every request, by code of this module only, on the loop thread
    // only, and never while another access to them is open: a session writes its answer through the `inout` that
    // ``appendingOutput(_:)`` lends and cannot reach the connection (it holds a ``ConnectionHandle``, which only
    // posts to the mailbox). Swift's run-time exclusivity check of each access (a thread-local access set) cost
    // about a quarter of the instructions of a ping, so these properties go without it.
    @exclusivity(unchecked) var framer: LineFramer
    @exclusivity(unchecked) var output: [UInt8] = []
    @exclusivity(unchecked) var outputOffset = 0
    var phase = Phase.open
    /// Edge-triggered readiness we have not consumed yet.
    var readable = false
    var writable = true
    /// The peer shut down its side (EPOLLRDHUP/EPOLLHUP): reads continue until they return 0.
    var hangupSeen = false
    var peerClosed = false
    var inFlight = false
    /// In the loop's list of connections whose answers are written at the end of this turn.
    var answersQueued = false
    var established = false
    var isClosed = false
    var lastActivity: UInt64
    /// The TLS layer between the socket and the framer, on a TLS port (see LoopConnection+TLS.swift).
    let tls: TLSSession?
    /// Why the connection is being closed for its protocol (a failed handshake, the wrong protocol, a bad PROXY
    /// header): logged once.
    var protocolFailure: ConnectionFailure?
    /// Whether any input of the relayed stream arrived yet (the first byte tells a TLS client from a plaintext
    /// one); a PROXY header before it does not count.
    var sawInput = false
    /// While a connection from a listed proxy waits for its PROXY header: the bytes received so far (see
    /// ProxyHeader.swift); `nil` once it is read, and for every other connection.
    var proxyHeaderBytes: [UInt8]?
    /// The PROXY header just read, for the loop to make the session with (taken at once).
    var receivedProxyHeader: ProxyHeader?

    init(handle: ConnectionHandle, session: (any LineSession)?, counted: Bool, maximumLineLength: Int, now: UInt64,
         tls: TLSSession? = nil, expectsProxyHeader: Bool = false) {
        self.tls = tls
        self.proxyHeaderBytes = expectsProxyHeader ? [] : nil
        self.id = handle.id
        self.handle = handle
        self.session = session
        self.counted = counted
        self.openedAt = now
        self.lastActivity = now
        self.framer = LineFramer(maximumLineLength: maximumLineLength)
    }

    /// Output not yet sent: plaintext not yet taken by TLS, plus ciphertext not yet written to the socket.
    var pendingOutput: Int { output.count - outputOffset + (tls?.pendingCiphertext ?? 0) }

    var isDraining: Bool {
        if case .draining = phase { return true }
        return false
    }

    /// The most output storage a connection keeps once everything is written: enough for a `ping` answer.
    static let retainedOutputCapacity = 128

    /// Queues bytes for writing, compacting what was already written.
    func enqueue(_ bytes: [UInt8]) {
        LoopThread.assertCurrent()
        guard !bytes.isEmpty else { return }
        compactOutput()
        if output.isEmpty { output = bytes } else { output.append(contentsOf: bytes) }
    }

    /// Lets `write` append to the output queue in place (what was already written compacted away first), so an
    /// answer needs no array of its own (``LineSession/received(line:appendingTo:)``).
    func appendingOutput<Result>(_ write: (inout [UInt8]) -> Result) -> Result {
        LoopThread.assertCurrent()
        compactOutput()
        return write(&output)
    }

    private func compactOutput() {
        if outputOffset > 0, outputOffset == output.count {
            outputDrained()
        } else if outputOffset >= 64 * 1024, outputOffset * 2 >= output.count {
            output.removeSubrange(0..<outputOffset)
            outputOffset = 0
        }
    }

    /// Marks everything written. At most a ping answer's worth of storage is kept (``retainedOutputCapacity``), for
    /// the answers appended in place (``appendingOutput(_:)``); a larger buffer, such as a `hello` answer's array
    /// that ``enqueue(_:)`` adopted, is given back, so an idle connection holds next to nothing (keeping it cost
    /// every idle connection 416 bytes).
    func outputDrained() {
        output.removeAll(keepingCapacity: output.capacity <= Self.retainedOutputCapacity)
        outputOffset = 0
    }
}
