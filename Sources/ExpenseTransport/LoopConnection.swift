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
    let handle: ConnectionHandle
    /// `nil` for a connection refused as busy, which only drains.
    let session: (any LineSession)?
    /// Whether the connection counts toward the maximum (refused ones do not).
    let counted: Bool
    let openedAt: UInt64

    var framer: LineFramer
    var output: [UInt8] = []
    var outputOffset = 0
    var phase = Phase.open
    /// Edge-triggered readiness we have not consumed yet.
    var readable = false
    var writable = true
    /// The peer shut down its side (EPOLLRDHUP/EPOLLHUP): reads continue until they return 0.
    var hangupSeen = false
    var peerClosed = false
    var inFlight = false
    var established = false
    var isClosed = false
    var lastActivity: UInt64
    /// The TLS layer between the socket and the framer, on a TLS port (see LoopConnection+TLS.swift).
    let tls: TLSSession?
    /// Why the connection is being closed for its protocol (a failed handshake, the wrong protocol): logged once.
    var protocolFailure: TLSError?
    /// Whether any input arrived yet (the first byte tells a TLS client from a plaintext one).
    var sawInput = false

    init(handle: ConnectionHandle, session: (any LineSession)?, counted: Bool, maximumLineLength: Int, now: UInt64,
         tls: TLSSession? = nil) {
        self.tls = tls
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

    /// Queues bytes for writing, compacting what was already written.
    func enqueue(_ bytes: [UInt8]) {
        LoopThread.assertCurrent()
        guard !bytes.isEmpty else { return }
        if outputOffset > 0, outputOffset == output.count {
            output.removeAll(keepingCapacity: output.capacity <= 64 * 1024)
            outputOffset = 0
        } else if outputOffset >= 64 * 1024, outputOffset * 2 >= output.count {
            output.removeSubrange(0..<outputOffset)
            outputOffset = 0
        }
        if output.isEmpty { output = bytes } else { output.append(contentsOf: bytes) }
    }

    /// Marks everything written.
    func outputDrained() {
        output.removeAll(keepingCapacity: output.capacity <= 64 * 1024)
        outputOffset = 0
    }
}
