/// Identifies one accepted connection: its descriptor plus a generation, so a late answer for a closed
/// connection never reaches a new connection that reuses the descriptor number.
struct ConnectionID: Hashable, Sendable {
    var fd: Int32
    var generation: UInt32

    var epollData: UInt64 { UInt64(generation) << 32 | UInt64(UInt32(bitPattern: fd)) }

    init(fd: Int32, generation: UInt32) {
        self.fd = fd
        self.generation = generation
    }

    init(epollData: UInt64) {
        fd = Int32(bitPattern: UInt32(truncatingIfNeeded: epollData))
        generation = UInt32(truncatingIfNeeded: epollData >> 32)
    }
}

/// A thread-safe reference to a connection of a ``LineServer``, for code running off the loop thread.
///
/// Everything it does is posted to the loop (a `Mutex`-protected queue plus an `eventfd` wake-up); bytes are
/// only ever appended to the connection's output as whole lines, so a notification is never interleaved
/// inside a response. Messages for a connection that has closed are dropped.
public struct ConnectionHandle: Sendable, Hashable {
    let id: ConnectionID
    let mailbox: LoopMailbox
    /// The peer's numeric address (`127.0.0.1`), for logs and per-peer throttling: the client's, from the PROXY
    /// header, when a listed proxy relayed the connection (`serve --proxy-protocol`).
    public let peerHost: String
    /// The numeric address of the proxy that relayed the connection for ``peerHost``; `nil` for a direct client
    /// (and for a proxy's own connection, whose ``peerHost`` is the proxy).
    public let proxyHost: String?

    init(id: ConnectionID, mailbox: LoopMailbox, peerHost: String, proxyHost: String? = nil) {
        self.id = id
        self.mailbox = mailbox
        self.peerHost = peerHost
        self.proxyHost = proxyHost
    }

    /// A short name for logs: `connection 12.3 from 127.0.0.1` (descriptor 12, generation 3), and
    /// `connection 12.3 from 203.0.113.7 via 10.0.0.2` behind a proxy.
    public var logName: String {
        "connection \(id.fd).\(id.generation) from \(peerHost)" + (proxyHost.map { " via \($0)" } ?? "")
    }

    /// Finishes the request that returned ``LineDisposition/pending``: writes the line `answer` makes, then acts
    /// on `after`.
    ///
    /// `answer` is called on the loop thread, so a thread that finished the request's work hands the loop its
    /// result, not its encoding: the ledger's one thread bounds the push figures (85–100 % busy under the bench,
    /// the loop thread 11–30 %), and a push's answer is a line per mutation. An answer already made is passed as
    /// `complete { bytes }`: one closure for every answer keeps one way through the mailbox, for the price of a
    /// small allocation on answers that were ready anyway.
    public func complete(after: AfterReply = .proceed, _ answer: @escaping @Sendable () -> [UInt8]) {
        mailbox.post(.init(target: id, kind: .complete(answer, after)))
    }

    /// Writes unsolicited lines (a notification) between responses.
    public func send(_ bytes: [UInt8]) {
        mailbox.post(.init(target: id, kind: .send(bytes)))
    }

    /// Closes the connection after what is already queued for it has been written.
    public func close() {
        mailbox.post(.init(target: id, kind: .close))
    }

    public static func == (lhs: ConnectionHandle, rhs: ConnectionHandle) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
