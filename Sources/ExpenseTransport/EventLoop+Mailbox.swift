/// The loop side of ``LoopMailbox``: what other threads asked for (a completed request, a line to send, a close,
/// the stop), done on the loop thread.
extension EventLoop {
    func handleMailbox() {
        LoopThread.assertCurrent()
        let (messages, stop) = mailbox.take()
        for message in messages {
            guard let connection = lookup(message.target) else { continue }
            switch message.kind {
            case .complete(let answer, let after): complete(connection, with: answer(), after: after)
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
}
