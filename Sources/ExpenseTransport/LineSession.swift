/// What the loop does after writing a reply.
public enum AfterReply: Sendable, Hashable {
    /// Go on with the next line.
    case proceed
    /// Go on, and from now on the connection is established: the handshake timeout no longer applies,
    /// only the idle timeout.
    case establish
    /// Write the reply, shut down the write side, drain the input briefly, then close.
    case close
}

/// A session's answer to one line.
public enum LineDisposition: Sendable {
    /// Write these bytes (complete lines, each ending in `\n`; may be empty) then act on `after`.
    case reply([UInt8], AfterReply)
    /// The answer comes later through ``ConnectionHandle/complete(after:_:)``; until then no further line
    /// of this connection is handed over (requests run strictly in order).
    case pending
}

/// The protocol logic of one connection, driven by ``LineServer``.
///
/// - Important: ``received(line:appendingTo:)``, ``lineTooLong()`` and ``closed()`` are called on the loop
///   thread, one at a time, and must not block: anything slow (an actor call, disk) returns
///   ``LineDisposition/pending`` and finishes on another task through the ``ConnectionHandle``. A session is
///   `Sendable` because those tasks may read or update its state; at most one request of a connection is in
///   flight at a time, so a `Mutex` inside the session is never contended.
public protocol LineSession: AnyObject, Sendable {
    /// Answers one complete line (without `\n`, never empty).
    ///
    /// `output` is the connection's output queue: a session may append its answer there directly, which spares
    /// an array per answer on a hot path (the daemon's `ping`), or return it as a
    /// ``LineDisposition/reply(_:_:)``; what is appended is written before the returned bytes. The loop cannot
    /// tell which a session did, so a session keeps such a fast path to itself.
    func received(line: ArraySlice<UInt8>, appendingTo output: inout [UInt8]) -> LineDisposition
    /// The peer sent a line over the limit: the bytes to answer with before the connection is closed.
    func lineTooLong() -> [UInt8]
    /// The connection is closed (by either side, a timeout or shutdown); release what the session holds.
    func closed()
}
