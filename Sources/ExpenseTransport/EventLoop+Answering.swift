/// Reading, answering, writing: a connection's input read and its lines answered by its session while it may
/// proceed (backpressure, one request in flight), the answers written at the end of the turn, and the output
/// limit.
extension EventLoop {
    func service(_ connection: LoopConnection) {
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
    func writeAnswers() {
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
                log(.info, "\(connection.handle.logName): line longer than \(configuration.maximumLineLength) bytes; closing")
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

    func apply(_ after: AfterReply, to connection: LoopConnection) {
        switch after {
        case .proceed: break
        case .establish: connection.established = true
        case .close: if case .open = connection.phase { connection.phase = .closing }
        }
    }

    /// Closes a connection whose unread output passed the limit. Returns whether it is still open.
    func checkOutputLimit(_ connection: LoopConnection) -> Bool {
        guard connection.pendingOutput > configuration.outputLimit else { return true }
        log(.info, "\(connection.handle.logName): more than \(configuration.outputLimit) bytes of answers unread; closing")
        close(connection)
        return false
    }

    func flush(_ connection: LoopConnection) {
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
}
