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
    /// The answer comes later through ``ConnectionHandle/complete(_:after:)``; until then no further line
    /// of this connection is handed over (requests run strictly in order).
    case pending
}

/// The protocol logic of one connection, driven by ``LineServer``.
///
/// - Important: ``received(line:)``, ``lineTooLong()`` and ``closed()`` are called on the loop thread, one
///   at a time, and must not block: anything slow (an actor call, disk) returns ``LineDisposition/pending``
///   and finishes on another task through the ``ConnectionHandle``. A session is `Sendable` because those
///   tasks may read or update its state; at most one request of a connection is in flight at a time, so a
///   `Mutex` inside the session is never contended.
public protocol LineSession: AnyObject, Sendable {
    /// One complete line (without `\n`), never empty.
    func received(line: ArraySlice<UInt8>) -> LineDisposition
    /// One complete line, with the connection's output queue to append an answer to directly (no array of its
    /// own per answer): what is appended is written before the bytes of a returned ``LineDisposition/reply(_:_:)``.
    /// The default calls ``received(line:)``.
    func received(line: ArraySlice<UInt8>, appendingTo output: inout [UInt8]) -> LineDisposition
    /// The peer sent a line over the limit: the bytes to answer with before the connection is closed.
    func lineTooLong() -> [UInt8]
    /// The connection is closed (by either side, a timeout or shutdown); release what the session holds.
    func closed()
}

extension LineSession {
    public func received(line: ArraySlice<UInt8>, appendingTo output: inout [UInt8]) -> LineDisposition {
        received(line: line)
    }
}
